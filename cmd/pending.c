/* Subcommands whose issue has not landed yet. */
#include <stdio.h>

#include "cmd/cmd.h"

static int pending(const char *name)
{
    fprintf(stderr, "cronwarden %s: not implemented yet\n", name);
    return CW_EXIT_USAGE;
}

int cw_cmd_controller(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return pending("controller");
}
