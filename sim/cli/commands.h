/* The smsim commands, one function each: argc/argv after the command word, returns the exit
 * status (0, 2 for bad input).  main.c dispatches to them through sm_commands(). */
#pragma once

#include <glib.h>

int sm_cmd_run(int argc, char **argv);
int sm_cmd_describe(int argc, char **argv);
int sm_cmd_list(int argc, char **argv);
int sm_cmd_explain(int argc, char **argv);
int sm_cmd_sweep(int argc, char **argv);
int sm_cmd_merge(int argc, char **argv);
int sm_cmd_validate(int argc, char **argv);
int sm_cmd_fit(int argc, char **argv);
int sm_cmd_occupancy(int argc, char **argv);
int sm_cmd_serve(int argc, char **argv);

typedef struct {
  const char *name;
  /* what follows "smsim NAME" in the usage; '\n' starts a continuation line */
  const char *synopsis;
  int (*fn)(int argc, char **argv);
} SmCommand;

/* Every command, in the order 'smsim --help' and the man page list them. */
const SmCommand *sm_commands(guint *n);

/* "smsim --help": the synopsis of every command. */
void sm_usage_text(GString *out);

/* The top-level options (manual.c): "smsim VERSION" and the build's options; the man pages
 * smsim(1) ("1") and smsim-config(5) ("5") in roff; the bash completion script.  Each returns
 * the exit status. */
int sm_print_version(void);
int sm_print_man_page(const char *section);
int sm_print_completion(const char *shell);
