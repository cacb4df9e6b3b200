/* cronwarden: one binary, one subcommand per deployment shape. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand commands[] = {
    {"migrate", cw_cmd_migrate,
     "turn legacy Longhorn recurringJobs into RecurringJobs and labels (upgrade Job, audits)"},
    {"webhook", cw_cmd_webhook, "serve the mutating/validating admission webhook"},
    {"controller", cw_cmd_controller, "run the companion controller"},
    {"cron", cw_cmd_cron, "validate cron expressions and print their next fire times"},
    {"version", cw_cmd_version, "print the version"},
};

static void usage(FILE *out)
{
    fprintf(
        out,
        "Usage: cronwarden <command> [flags]\n\n"
        "Keeps Longhorn and Velero backup schedules correct across upgrades and at admission.\n\n"
        "Commands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
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
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return CW_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0)
        return cw_cmd_version(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
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
