/* The smsim command line: picks the command.  Each command lives in its own file (commands.h). */
#include <fcntl.h>
#include <locale.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "../study/dist.h"
#include "../study/plot.h"
#include "cli.h"
#include "commands.h"

static int
dispatch(int argc, char **argv)
{
  if (argc < 2)
    return sm_cli_usage("no command given");
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    g_autoptr(GString) usage = g_string_new(NULL);
    sm_usage_text(usage);
    fputs(usage->str, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0)
    return argc == 2 ? sm_print_version() : sm_cli_usage("--version takes nothing after it");
  /* for packagers: the man pages and the completion script, from the option tables */
  if (strcmp(cmd, "--man-page") == 0)
    return argc == 3 ? sm_print_man_page(argv[2]) : sm_cli_usage("--man-page needs 1 or 5");
  if (strcmp(cmd, "--completion") == 0)
    return argc == 3 ? sm_print_completion(argv[2]) : sm_cli_usage("--completion needs bash");
  guint n;
  const SmCommand *commands = sm_commands(&n);
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (guint c = 0; c < n; c++) {
    if (strcmp(cmd, commands[c].name) == 0)
      return commands[c].fn(argc - 1, argv + 1);
    cfg_nearer(cmd, commands[c].name, &best, &best_d);
  }
  g_autofree char *msg =
      best ? g_strdup_printf("unknown command '%s'; did you mean '%s'?", cmd, best)
           : g_strdup_printf("unknown command '%s'", cmd);
  return sm_cli_usage(msg);
}

int
main(int argc, char **argv)
{
  setlocale(LC_ALL, "C");
  GError *error = NULL;
  if (!sm_dist_init(&argc, &argv, &error))
    return sm_cli_fail(error);
  if (sm_dist_rank() != 0) {
    /* rank 0 prints and writes; the others only compute (each rank still checks the input,
     * and its own failures reach its stderr through sm_dist's report stream) */
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      close(null);
    }
  }
  sm_cli_catch_signals();
  int status = dispatch(argc, argv);
  int stopped = sm_cli_interrupted(argc > 1 ? argv[1] : "");
  status = sm_cli_finish_stdout(stopped ? stopped : status);
  sm_plot_shutdown();
  sm_dist_finalize();
  return status;
}
