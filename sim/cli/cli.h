/* What the smsim commands share: option parsing, one-line errors, the progress line, writing
 * a result file.  Not the commands themselves (commands.h). */
#pragma once

#include <glib.h>

#include "../../config/find.h"

/* Parses options of @command; on failure prints one line and returns FALSE. */
gboolean sm_cli_parse(const char *command, const char *summary, const GOptionEntry *entries,
                      int *argc, char ***argv);
/* While set, sm_cli_parse() parses nothing: it hands its command's name, summary and option
 * table to @fn and returns FALSE (so the command returns at once).  This is how the man page
 * and the completion script read the very tables the commands parse with (manual.c). */
typedef void (*SmCliOptionsFunc)(const char *command, const char *summary,
                                 const GOptionEntry *entries, gpointer data);
void sm_cli_set_options_hook(SmCliOptionsFunc fn, gpointer data);

/* The file a GPU or kernel argument names: a path, or a name looked up along the search path
 * (config/find.h); on failure prints one line and returns NULL. */
char *sm_cli_find(const char *arg, CfgFindKind kind);
/* The files of a GPU argument and a kernel argument (@kernel_arg NULL: none, *@kernel_file
 * NULL), the GPU first; FALSE after printing one line for the first that names none. */
gboolean sm_cli_find_pair(const char *gpu_arg, const char *kernel_arg, char **gpu_file,
                          char **kernel_file);

/* Prints "smsim: MSG (see 'smsim --help')" and returns the bad-input status, 2. */
int sm_cli_usage(const char *msg);
/* Prints @msg as one line and returns the bad-input status, 2. */
int sm_cli_usage_error(const char *msg);
/* Prints the error's message (one line), frees it, returns 2. */
int sm_cli_fail(GError *error);
/* The same for an output that could not be written: returns 1. */
int sm_cli_write_error(GError *error);

/* Checks --jobs (0 = default, else 1..1024) and a plot path's extension; on failure prints one
 * line and returns FALSE. */
gboolean sm_cli_check_jobs_and_plot(gint jobs, const char *plot_path);

/* Progress of a batch of runs (SmProgressFunc; @data is the label): "LABEL: D/N runs" on
 * stderr when it is a terminal, nothing otherwise. */
void sm_cli_progress(guint done, guint total, gpointer data);

/* Writes @text to @path: a regular file through a temporary name in its folder, renamed once
 * all is written and synced (nothing is left under either name on failure); a device or pipe
 * directly.  On failure prints "PATH: cannot write: REASON" and returns FALSE (exit status 1).
 */
gboolean sm_cli_write_file(const char *path, const char *text);
/* The same for @n bytes of binary data. */
gboolean sm_cli_write_bytes(const char *path, const void *data, gsize n);
/* Flushes stdout; when that or any earlier write to it failed, prints "stdout: cannot write:
 * REASON" and turns a 0 @status into 1. */
int sm_cli_finish_stdout(int status);

/* SIGINT and SIGTERM stop the simulations (sm_request_stop) instead of killing the process,
 * so temporary files are removed and nothing half-done gets a final name. */
void sm_cli_catch_signals(void);
/* After a command: when a signal stopped it, prints "smsim COMMAND: interrupted by SIGINT; no
 * output written" and returns 130 (SIGINT) or 143 (SIGTERM); else 0. */
int sm_cli_interrupted(const char *command);

/* --no-fast-forward, taken by every command that simulates: @var set turns off the exact
 * fast-forward over periodic steady states (sm_set_fast_forward) and the stepping of one SM for
 * all that run alike (sm_set_mirroring). */
#define SM_CLI_NO_FAST_FORWARD(var)                                                                \
  {                                                                                                \
    "no-fast-forward", 0, 0, G_OPTION_ARG_NONE, &(var),                                            \
        "Step through every cycle of every SM, even where the state repeats or the SMs run alike " \
        "(same results, slower)",                                                                  \
        NULL                                                                                       \
  }

/* --threads, taken by every command that simulates: how many threads step the SMs of runs
 * (0: the default, one per core); a batch's runs share them (sm_batch_set_threads()). */
#define SM_CLI_THREADS(var)                                                                        \
  {                                                                                                \
    "threads", 0, 0, G_OPTION_ARG_INT, &(var),                                                     \
        "Threads stepping the SMs of a run, shared by the runs in parallel (default: one per "     \
        "core; the same results for any number)",                                                  \
        "N"                                                                                        \
  }
/* Checks --threads (0 = default, else 1..1024); on failure prints one line and returns FALSE.
 * *@out: the threads to use (the cores available for 0). */
gboolean sm_cli_threads(gint threads, guint *out);
/* Parses --max-cycles (NULL: the default, SM_DEFAULT_MAX_CYCLES); on failure prints one line
 * and returns FALSE. */
gboolean sm_cli_max_cycles(const char *text, guint64 *out);
