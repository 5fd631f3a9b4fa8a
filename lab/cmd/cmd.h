/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands: one file each (cmd_*.c), dispatched from main.c. */
#ifndef LAB_CMD_H
#define LAB_CMD_H

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;
	const char *usage;			/* full help text */
};

/* All commands, NULL-name terminated (main.c). */
extern const struct command lab_commands[];
const struct command *find_command(const char *name);
/* Print a command's help to stdout. */
void print_command_help(const struct command *cmd);
/* True when argv holds -h or --help before any "--". */
int wants_help(int argc, char **argv);

int cmd_config(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_guest(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

#endif
