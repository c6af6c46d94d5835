/* Option parsing, errors, progress and file writing shared by the commands. */
#include "cli.h"

#include <stdio.h>
#include <unistd.h>

#include "../study/plot.h"

gboolean
sm_cli_parse(const char *command, const char *summary, const GOptionEntry *entries, int *argc,
             char ***argv)
{
  g_autoptr(GOptionContext) ctx = g_option_context_new(summary);
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_autofree char *name = g_strdup_printf("smsim %s", command);
  g_set_prgname(name);
  GError *error = NULL;
  if (!g_option_context_parse(ctx, argc, argv, &error)) {
    fprintf(stderr, "smsim %s: %s\n", command, error->message);
    g_error_free(error);
    return FALSE;
  }
  return TRUE;
}

int
sm_cli_usage(const char *msg)
{
  fprintf(stderr, "smsim: %s (see 'smsim --help')\n", msg);
  return 2;
}

int
sm_cli_usage_error(const char *msg)
{
  fprintf(stderr, "%s\n", msg);
  return 2;
}

int
sm_cli_fail(GError *error)
{
  fprintf(stderr, "%s\n", error->message);
  g_error_free(error);
  return 2;
}

gboolean
sm_cli_check_jobs_and_plot(gint jobs, const char *plot_path)
{
  if (jobs < 0 || jobs > 1024) {
    fprintf(stderr, "--jobs %d: must be from 1 to 1024\n", jobs);
    return FALSE;
  }
  GError *error = NULL;
  if (plot_path && !sm_plot_check_path(plot_path, &error)) {
    sm_cli_fail(error);
    return FALSE;
  }
  return TRUE;
}

void
sm_cli_progress(guint done, guint total, gpointer data)
{
  if (!isatty(STDERR_FILENO))
    return;
  fprintf(stderr, "\r%s: %u/%u runs%s", (const char *)data, done, total, done == total ? "\n" : "");
  fflush(stderr);
}

gboolean
sm_cli_write_file(const char *path, const char *text)
{
  GError *error = NULL;
  if (!g_file_set_contents(path, text, -1, &error)) {
    fprintf(stderr, "%s: cannot write: %s\n", path, error->message);
    g_error_free(error);
    return FALSE;
  }
  return TRUE;
}
