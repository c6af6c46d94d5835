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

static const char usage_text[] =
    "usage: smsim COMMAND ...\n"
    "  smsim run       GPU.yaml KERNEL.yaml [--set K=V]... [--json] [--max-cycles N [--partial]]\n"
    "                  [--trace FILE.{txt,vcd,json,csv} [--trace-window A:B] [--trace-warps "
    "LIST]]\n"
    "  smsim sweep     GPU.yaml KERNEL.yaml --vary K=LIST|A:B[:STEP]... [--set K=V]...\n"
    "                  [--csv FILE] [--json FILE] [--plot FILE.{png,svg}] [--jobs N]\n"
    "                  [--max-cycles N] [--shard K/N --csv PART.csv]\n"
    "  smsim merge     PART.csv... [--csv FILE] [--json FILE] [--plot FILE.{png,svg}]\n"
    "  smsim validate  GPU.yaml MEASUREMENTS.csv [--curve LABEL]... [--csv FILE] [--plot FILE]\n"
    "                  [--jobs N] [--max-cycles N]\n"
    "  smsim fit       GPU.yaml MEASUREMENTS.csv --free KEY[=LO:HI]... [--out FILE.yaml] [--jobs "
    "N]\n"
    "  smsim occupancy GPU.yaml --threads-per-block T [--regs-per-thread R] [--smem-per-block B]\n"
    "  smsim describe  GPU.yaml [--set K=V]...\n"
    "run, sweep and validate also take --no-fast-forward (step through every cycle of every SM).\n"
    "Run 'smsim COMMAND --help' for a command's options.\n";

static int
dispatch(int argc, char **argv)
{
  if (argc < 2)
    return sm_cli_usage("no command given");
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage_text, stdout);
    return 0;
  }
  if (strcmp(cmd, "run") == 0)
    return sm_cmd_run(argc - 1, argv + 1);
  if (strcmp(cmd, "occupancy") == 0)
    return sm_cmd_occupancy(argc - 1, argv + 1);
  if (strcmp(cmd, "validate") == 0)
    return sm_cmd_validate(argc - 1, argv + 1);
  if (strcmp(cmd, "fit") == 0)
    return sm_cmd_fit(argc - 1, argv + 1);
  if (strcmp(cmd, "sweep") == 0)
    return sm_cmd_sweep(argc - 1, argv + 1);
  if (strcmp(cmd, "merge") == 0)
    return sm_cmd_merge(argc - 1, argv + 1);
  if (strcmp(cmd, "describe") == 0)
    return sm_cmd_describe(argc - 1, argv + 1);
  g_autofree char *msg = g_strdup_printf("unknown command '%s'", cmd);
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
