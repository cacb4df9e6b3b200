#include <stdio.h>

#include "cmd/cmd.h"
#include "lib/version.h"

int cw_cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("cronwarden %s\n", CW_VERSION);
    return CW_EXIT_OK;
}
