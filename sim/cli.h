/* Helpers shared by the smsim commands: option parsing and one-line errors. */
#pragma once

#include <glib.h>

/* Parses options of @command; on failure prints one line and returns FALSE. */
gboolean sm_cli_parse(const char *command, const char *summary, const GOptionEntry *entries,
                      int *argc, char ***argv);
/* Prints "smsim: MSG (see 'smsim --help')" and returns the bad-input status, 2. */
int sm_cli_usage(const char *msg);
/* Prints the error's message (one line), frees it, returns 2. */
int sm_cli_fail(GError *error);

/* Checks --jobs (0 = default, else 1..1024) and a plot path's extension; on failure prints one
 * line and returns FALSE. */
gboolean sm_cli_check_jobs_and_plot(gint jobs, const char *plot_path);
