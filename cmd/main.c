/* cronwarden: one binary, one subcommand per deployment shape. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

/* The commands: the summary below and the dispatch both come from this table. */
static const cw_cmd_entry commands[] = {
    {"migrate", cw_cmd_migrate, NULL,
     "turn legacy Longhorn recurringJobs into RecurringJobs and labels (upgrade Job, audits)",
     NULL},
    {"webhook", cw_cmd_webhook, NULL, "serve the mutating/validating admission webhook", NULL},
    {"controller", cw_cmd_controller, NULL, "run the companion controller", NULL},
    {"cron", cw_cmd_cron, NULL, "validate cron expressions and print their next fire times",
     cw_cmd_cron_commands},
    {"version", cw_cmd_version, NULL, "print the version", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static void usage(FILE *out)
{
    fprintf(
        out,
        "Usage: cronwarden <command> [flags]\n\n"
        "Keeps Longhorn and Velero backup schedules correct across upgrades and at admission.\n\n"
        "Commands:\n");
    for (size_t i = 0; commands[i].name; i++) {
        const cw_cmd_entry *c = &commands[i];
        fprintf(out, "  %-11s %s\n", c->name, c->summary);
        for (size_t j = 0; c->sub && c->sub[j].name; j++) {
            char name[64];
            snprintf(name, sizeof(name), "%s %s", c->name, c->sub[j].name);
            if (c->sub[j].summary)
                fprintf(out, "  %-11s %s\n", name, c->sub[j].summary);
        }
    }
    fprintf(
        out,
        "\nRun 'cronwarden <command> --help' for the flags of a command.\n"
        "Exit codes: 0 success, 1 failure (see the command), 2 usage or configuration error.\n");
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CW_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (cw_cmd_is_help(name)) {
        usage(stdout);
        return CW_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0)
        return cw_cmd_version(argc - 1, argv + 1);
    const cw_cmd_entry *c = cw_cmd_find(commands, name);
    if (c)
        return c->run(argc - 1, argv + 1);
    fprintf(stderr, "cronwarden: unknown command '%s' (see 'cronwarden --help')\n", name);
    return CW_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    int code = run(argc, argv);
    /* Output that did not reach its file (a full disk, a closed pipe) is a failure, whatever
     * the command thought: one check for every command, --help included. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "cronwarden: writing to standard output failed: %s\n",
                strerror(errno ? errno : EIO));
        return code == CW_EXIT_OK || code == 3 ? CW_EXIT_FAIL : code;
    }
    return code;
}
