// SPDX-License-Identifier: GPL-2.0
#include "domain_plan.h"
#include "domain_xml.h"
#include "fsutil.h"
#include "guest_protocol.h"
#include "util.h"

#include <stdlib.h>

char *guest_run_cmdline(const struct guest_run *run)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, GUEST_BASE_CMDLINE);
	if (run->accel == ACCEL_TCG)
		sb_adds(&sb, " " GUEST_TCG_CMDLINE);
	if (run->remote ? run->remote->disk != NULL : run->base_image != NULL)
		sb_adds(&sb, " root=/dev/vda rootfstype=ext4 rw init=" GUEST_RUNNER_PATH);
	if (run->job_cmdline && *run->job_cmdline)
		sb_addf(&sb, " %s", run->job_cmdline);
	if (run->extra_cmdline && *run->extra_cmdline)
		sb_addf(&sb, " %s", run->extra_cmdline);
	return sb_detach(&sb);
}

/* QEMU runs in another folder: every path it sees must be absolute (NULL stays NULL). */
static int absolute(const char *p, char **out)
{
	*out = NULL;
	if (!p)
		return 0;
	*out = path_absolute(NULL, p);
	return *out ? 0 : -1;
}

/* QEMU's option syntax: a comma inside a value is written twice. */
static void add_qemu_opt(struct strbuf *sb, const char *v)
{
	for (; *v; v++) {
		if (*v == ',')
			sb_addc(sb, ',');
		sb_addc(sb, *v);
	}
}

/* -plugin's value for the attribution plugin @so writing to @dir/attr.N; NULL if @so is not absolute-able. */
static char *plugin_arg(const char *so, const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	char *abs;

	if (absolute(so, &abs) || !abs)
		return NULL;
	add_qemu_opt(&sb, abs);
	sb_adds(&sb, ",out=");
	add_qemu_opt(&sb, dir);
	sb_adds(&sb, "/attr");
	free(abs);
	return sb_detach(&sb);
}

char *guest_run_domain_xml(const struct guest_run *run, const char *name,
			   const struct domain_owner *owner)
{
	char *dir = NULL, *kernel = NULL, *initrd = NULL, *xml = NULL;
	char *disk = NULL, *job = NULL, *console = NULL, *channel = NULL, *cmdline = NULL;
	char *plugin = NULL;
	const struct guest_remote *rem = run->remote;
	struct domain_spec spec;

	if (absolute(run->run_dir, &dir) ||
	    (!rem && (absolute(run->kernel, &kernel) || absolute(run->initrd, &initrd))))
		goto out;
	console = path_join(dir, "console.log");
	channel = path_join(dir, "results.jsonl");
	if (rem)
		disk = rem->disk ? xstrdup(rem->disk) : NULL;
	else if (run->base_image)
		disk = path_join(dir, "disk.qcow2");
	if (!rem && run->job_json)
		job = path_join(dir, "job.json");
	cmdline = guest_run_cmdline(run);
	if (run->attr_plugin && !rem && !(plugin = plugin_arg(run->attr_plugin, dir)))
		goto out;
	spec = (struct domain_spec){
		.name = name, .topo = run->topo, .accel = run->accel,
		.kernel = rem ? rem->kernel : kernel, .initrd = rem ? rem->initrd : initrd,
		.cmdline = cmdline, .disk = disk, .job = rem ? rem->job : job,
		.console_log = console, .channel_log = channel, .streams = !!rem,
		.console_host_log = rem ? rem->console_log : NULL,
		.shares = run->shares, .nr_shares = run->nr_shares, .owner = owner,
		.qemu_plugin = plugin,
	};
	xml = domain_xml(&spec);
out:
	free(dir);
	free(kernel);
	free(initrd);
	free(disk);
	free(job);
	free(console);
	free(channel);
	free(cmdline);
	free(plugin);
	return xml;
}
