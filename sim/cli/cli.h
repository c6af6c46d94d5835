/* What the smsim commands share: option parsing, one-line errors, the progress line, writing
 * a result file.  Not the commands themselves (commands.h). */
#pragma once

#include <glib.h>

/* Parses options of @command; on failure prints one line and returns FALSE. */
gboolean sm_cli_parse(const char *command, const char *summary, const GOptionEntry *entries,
                      int *argc, char ***argv);
/* Prints "smsim: MSG (see 'smsim --help')" and returns the bad-input status, 2. */
int sm_cli_usage(const char *msg);
/* Prints @msg as one line and returns the bad-input status, 2. */
int sm_cli_usage_error(const char *msg);
/* Prints the error's message (one line), frees it, returns 2. */
int sm_cli_fail(GError *error);

/* Checks --jobs (0 = default, else 1..1024) and a plot path's extension; on failure prints one
 * line and returns FALSE. */
gboolean sm_cli_check_jobs_and_plot(gint jobs, const char *plot_path);

/* Progress of a batch of runs (SmProgressFunc; @data is the label): "LABEL: D/N runs" on
 * stderr when it is a terminal, nothing otherwise. */
void sm_cli_progress(guint done, guint total, gpointer data);

/* Writes @text to @path (through a temporary file); on failure prints "PATH: cannot write:
 * REASON" and returns FALSE. */
gboolean sm_cli_write_file(const char *path, const char *text);
