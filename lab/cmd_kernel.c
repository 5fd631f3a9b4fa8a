#include "cmd.h"
#include "util.h"
int cmd_kernel(int argc, char **argv) { (void)argc; (void)argv; return user_error("in progress"); }
