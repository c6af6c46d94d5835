/* The table of commands: names, synopses and functions (commands.h). */
#include "commands.h"

static const SmCommand commands[] = {
    {"run",
     "GPU KERNEL [--set K=V]... [--json] [--max-cycles N [--partial]]\n"
     "[--trace FILE.{txt,vcd,json,csv,png,svg} [--trace-window A:B] [--trace-warps LIST]]",
     sm_cmd_run},
    {"sweep",
     "GPU KERNEL --vary K=LIST|A:B[:STEP]... [--set K=V]...\n"
     "[--csv FILE] [--json FILE] [--plot FILE.{png,svg}] [--jobs N]\n"
     "[--max-cycles N] [--shard K/N --csv PART.csv]",
     sm_cmd_sweep},
    {"merge", "PART.csv... [--csv FILE] [--json FILE] [--plot FILE.{png,svg}]", sm_cmd_merge},
    {"validate",
     "GPU MEASUREMENTS.csv [--curve LABEL]... [--csv FILE] [--plot FILE]\n"
     "[--jobs N] [--max-cycles N]",
     sm_cmd_validate},
    {"fit", "GPU MEASUREMENTS.csv --free KEY[=LO:HI]... [--out FILE.yaml] [--jobs N]", sm_cmd_fit},
    {"occupancy", "GPU --threads-per-block T [--regs-per-thread R] [--smem-per-block B]",
     sm_cmd_occupancy},
    {"describe", "GPU [--set K=V]... | KERNEL", sm_cmd_describe},
    {"list", "[gpus|kernels] [--names] | keys GPU [KERNEL]", sm_cmd_list},
    {"explain", "[TOPIC] | littles-law GPU KERNEL", sm_cmd_explain},
    {"serve", "[--port N] [--bind ADDR] [--jobs N] [--queue N] [--max-seconds S]", sm_cmd_serve},
};

const SmCommand *
sm_commands(guint *n)
{
  *n = G_N_ELEMENTS(commands);
  return commands;
}

void
sm_usage_text(GString *out)
{
  g_string_append(out, "usage: smsim COMMAND ...\n");
  for (guint c = 0; c < G_N_ELEMENTS(commands); c++) {
    g_auto(GStrv) lines = g_strsplit(commands[c].synopsis, "\n", -1);
    for (guint l = 0; lines[l]; l++)
      g_string_append_printf(out, "  %-15s %s\n", l == 0 ? commands[c].name : "", lines[l]);
  }
  g_string_append(
      out, "GPU and KERNEL: a YAML file, or a name ('h100', 'mix', 'textbook/saxpy') looked up in\n"
           "$SMSIM_PATH, then the installed presets and kernels ('smsim list' shows them).\n"
           "run, sweep and validate also take --no-fast-forward (step through every cycle of every "
           "SM).\n"
           "smsim --version prints the version and the build's options.\n"
           "Run 'smsim COMMAND --help' for a command's options; 'man smsim' for all of them.\n");
}
