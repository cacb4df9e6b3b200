/* Subcommands whose issue has not landed yet. */
#include <stdio.h>

#include "cmd/cmd.h"

/* Unused while every subcommand has landed; kept for the next stub. */
__attribute__((unused)) static int pending(const char *name)
{
    fprintf(stderr, "cronwarden %s: not implemented yet\n", name);
    return CW_EXIT_USAGE;
}
