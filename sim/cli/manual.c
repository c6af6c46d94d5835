/* smsim --version, the man pages smsim(1) and smsim-config(5), and the bash completion script:
 * all read from the tables the program itself uses (the commands' option tables through
 * sm_cli_set_options_hook(), the GPU and kernel key tables of config/), so they cannot drift
 * from --help or from what the loaders accept. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../config/kernel.h"
#include "cli.h"
#include "commands.h"

int
sm_print_version(void)
{
  printf("smsim %s\n"
         "build: %s, sanitizers: %s, MPI: %s\n"
         "installed data: %s\n",
         SMSIM_VERSION, SMSIM_BUILDTYPE, SMSIM_SANITIZE, SMSIM_MPI, cfg_find_install_dir());
  return 0;
}

/* ---- the option tables, as the commands declare them ---- */

typedef struct {
  char *summary;      /* what the command does (its parse summary after " - ") */
  GArray *entries;    /* GOptionEntry, strings copied */
  GPtrArray *strings; /* owns the copies */
} Options;

static void
on_options(const char *command, const char *summary, const GOptionEntry *entries, gpointer data)
{
  Options *o = data;
  const char *dash = strstr(summary, " - ");
  o->summary = g_strdup(dash ? dash + 3 : summary);
  for (guint i = 0; entries[i].long_name; i++) {
    GOptionEntry e = entries[i];
    if (e.flags & G_OPTION_FLAG_HIDDEN)
      continue;
    const char **fields[] = {&e.long_name, &e.description, &e.arg_description};
    for (guint f = 0; f < G_N_ELEMENTS(fields); f++)
      if (*fields[f]) {
        char *copy = g_strdup(*fields[f]);
        g_ptr_array_add(o->strings, copy);
        *fields[f] = copy;
      }
    e.arg_data = NULL;
    g_array_append_val(o->entries, e);
  }
}

/* The summary and options of command @c (the command runs with the hook set and returns at
 * once). */
static Options *
options_of(const SmCommand *c)
{
  Options *o = g_new0(Options, 1);
  o->entries = g_array_new(FALSE, FALSE, sizeof(GOptionEntry));
  o->strings = g_ptr_array_new_with_free_func(g_free);
  char *argv[] = {(char *)c->name, NULL};
  sm_cli_set_options_hook(on_options, o);
  c->fn(1, argv);
  sm_cli_set_options_hook(NULL, NULL);
  return o;
}

static void
options_free(Options *o)
{
  g_free(o->summary);
  g_array_free(o->entries, TRUE);
  g_ptr_array_free(o->strings, TRUE);
  g_free(o);
}

/* ---- roff ---- */

/* @text escaped for roff: backslashes, and a '.' or '\'' starting a line. */
static void
roff(GString *out, const char *text, gboolean minus)
{
  gboolean line_start = out->len == 0 || out->str[out->len - 1] == '\n';
  for (const char *p = text; *p; p++) {
    if (line_start && (*p == '.' || *p == '\''))
      g_string_append(out, "\\&");
    if (*p == '\\')
      g_string_append(out, "\\e");
    else if (*p == '-' && minus)
      g_string_append(out, "\\-");
    else
      g_string_append_c(out, *p);
    line_start = *p == '\n';
  }
}

static void
man_option(GString *out, const GOptionEntry *e)
{
  g_string_append(out, ".TP\n");
  if (e->short_name)
    g_string_append_printf(out, "\\fB\\-%c\\fR, ", e->short_name);
  g_string_append(out, "\\fB\\-\\-");
  roff(out, e->long_name, TRUE);
  g_string_append(out, "\\fR");
  if (e->arg != G_OPTION_ARG_NONE) {
    g_string_append(out, " \\fI");
    roff(out, e->arg_description ? e->arg_description : "VALUE", TRUE);
    g_string_append(out, "\\fR");
  }
  g_string_append_c(out, '\n');
  roff(out, e->description ? e->description : "", FALSE);
  gboolean says = e->description && strstr(e->description, "repeatable");
  g_string_append(out, e->arg == G_OPTION_ARG_STRING_ARRAY && !says ? " (repeatable)\n" : "\n");
}

static void
man_synopsis(GString *out, const SmCommand *c)
{
  g_auto(GStrv) lines = g_strsplit(c->synopsis, "\n", -1);
  g_string_append_printf(out, "\\fBsmsim %s\\fR ", c->name);
  for (guint l = 0; lines[l]; l++) {
    roff(out, lines[l], TRUE);
    g_string_append(out, lines[l + 1] ? "\n.br\n\\ \\ \\ \\ " : "\n");
  }
}

static void
man_page_1(GString *out)
{
  g_string_append_printf(
      out,
      ".TH SMSIM 1 \"\" \"smsim %s\" \"User Commands\"\n"
      ".SH NAME\n"
      "smsim \\- cycle-level simulator of a GPU streaming multiprocessor: how warps hide "
      "latency\n"
      ".SH SYNOPSIS\n",
      SMSIM_VERSION);
  guint n;
  const SmCommand *commands = sm_commands(&n);
  for (guint c = 0; c < n; c++) {
    g_string_append(out, ".PP\n");
    man_synopsis(out, &commands[c]);
  }
  g_string_append(
      out,
      ".PP\n\\fBsmsim \\-\\-help\\fR | \\fB\\-\\-version\\fR\n"
      ".SH DESCRIPTION\n"
      "smsim simulates one GPU streaming multiprocessor (or all of a GPU's SMs) cycle by cycle: "
      "warp schedulers, execution pipelines, shared memory, caches and a bandwidth-limited "
      "memory, described in a YAML GPU file, running a kernel described in a YAML kernel file "
      "(a synthetic instruction stream, or a real kernel's SASS).  It reports cycles, "
      "throughput, occupancy and why warps wait (warp states named as Nsight Compute names "
      "them), and writes per-cycle traces, sweeps and plots.  Latency hiding, Little's law and "
      "the saturation of memory throughput emerge from the simulated hardware.\n"
      ".PP\n"
      "\\fIGPU\\fR and \\fIKERNEL\\fR are YAML files, or names looked up as "
      "\\fBNAMES\\fR below says (\\fBsmsim list\\fR prints them).  The keys of both files are "
      "in \\fBsmsim-config\\fR(5).\n"
      ".SH COMMANDS\n");
  for (guint c = 0; c < n; c++) {
    Options *o = options_of(&commands[c]);
    g_string_append_printf(out, ".SS %s\n", commands[c].name);
    man_synopsis(out, &commands[c]);
    g_string_append(out, ".PP\n");
    g_autofree char *summary = g_strdup(o->summary);
    summary[0] = g_ascii_toupper(summary[0]);
    roff(out, summary, FALSE);
    g_string_append(out, ".\n");
    for (guint i = 0; i < o->entries->len; i++)
      man_option(out, &g_array_index(o->entries, GOptionEntry, i));
    g_string_append(out, ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nPrint the command's options.\n");
    options_free(o);
  }
  g_string_append_printf(
      out,
      ".SH NAMES\n"
      "A \\fIGPU\\fR or \\fIKERNEL\\fR argument that is an existing file is read as it is.  "
      "Any other is a name: \\fBh100\\fR for the GPU file h100.yaml, \\fBmix\\fR or "
      "\\fBtextbook/saxpy\\fR for kernel files (a trailing .yaml may be given).  A name is "
      "looked up, the first found winning, in:\n"
      ".IP 1. 4\n"
      "each folder of \\fBSMSIM_PATH\\fR: \\fINAME\\fR.yaml there (if it is a file of the kind "
      "asked), then in its \\fBgpus/\\fR or \\fBkernels/\\fR subfolder;\n"
      ".IP 2. 4\n"
      "the source tree (config/gpus, isa/kernels), when smsim runs from its build folder;\n"
      ".IP 3. 4\n"
      "the installed data: \\fIPREFIX\\fR/share/smsim/gpus and .../kernels, found beside the "
      "program (so an installed tree can be moved), then %s.\n"
      ".PP\n"
      "An unknown name is answered with the nearest known one.  \\fBsmsim list\\fR prints every "
      "name with its description and folder; \\fBsmsim list keys \\fIGPU KERNEL\\fR the keys "
      "\\fB\\-\\-set\\fR takes.\n"
      ".SH ENVIRONMENT\n"
      ".TP\n\\fBSMSIM_PATH\\fR\n"
      "Colon-separated folders searched first for GPU and kernel names.\n"
      ".SH EXIT STATUS\n"
      ".TP\n0\nSuccess.\n"
      ".TP\n1\nAn output could not be written, or a run reached \\fB\\-\\-max\\-cycles\\fR.\n"
      ".TP\n2\nBad input: a bad option, file or value (one line on standard error, "
      "\\fIfile\\fR:\\fIline\\fR:\\fIcol\\fR: \\fIwhat is wrong\\fR for files).\n"
      ".TP\n130, 143\nInterrupted by SIGINT or SIGTERM (no output written).\n"
      ".SH EXAMPLES\n"
      ".nf\n"
      "smsim run h100 mix \\-\\-set warps_per_sm=32\n"
      "smsim sweep maxwell mix \\-\\-vary alpha=1,8,64 \\-\\-vary warps_per_sm=1:64 "
      "\\-\\-plot cusp.png\n"
      "smsim run h100 textbook/saxpy \\-\\-json\n"
      "smsim describe h100\n"
      "smsim list\n"
      ".fi\n"
      ".SH FILES\n"
      ".TP\n%s\nThe GPU presets (gpus/), the shipped kernels and their SASS (kernels/).\n"
      ".SH SEE ALSO\n"
      "\\fBsmsim\\-config\\fR(5); the guides in the documentation folder (README.md, "
      "docs/*.md).\n",
      cfg_find_install_dir(), cfg_find_install_dir());
}

/* A number as a person writes it: 16777216, 0.5, inf. */
static char *
number(double v)
{
  if (isinf(v))
    return g_strdup(v > 0 ? "inf" : "-inf");
  if (v == floor(v) && fabs(v) < 1e15)
    return g_strdup_printf("%.0f", v);
  return g_strdup_printf("%g", v);
}

/* What a field's value is: "whole number, 1 to 16 (per SM)", "one of lrr, gto", ... */
static void
field_type(GString *out, const CfgField *f)
{
  g_autofree char *lo = number(f->min), *hi = number(f->max);
  switch (f->type) {
  case CFG_FIELD_UINT:
  case CFG_FIELD_UINT64:
    g_string_append_printf(out, "whole number, %s to %s", lo, hi);
    break;
  case CFG_FIELD_DOUBLE:
    g_string_append_printf(out, "number, %s to %s", lo, hi);
    break;
  case CFG_FIELD_BOOL:
    g_string_append(out, "true or false");
    break;
  case CFG_FIELD_ENUM:
    g_string_append(out, "one of ");
    for (guint i = 0; f->names && f->names[i]; i++)
      g_string_append_printf(out, "%s%s", i ? ", " : "", f->names[i]);
    break;
  case CFG_FIELD_STRING:
    g_string_append(out, "text");
    break;
  case CFG_FIELD_SECTION:
    g_string_append(out, "a section");
    break;
  case CFG_FIELD_LIST:
    g_string_append(out, "a list");
    break;
  }
  if (f->unit)
    g_string_append_printf(out, ", %s", f->unit);
}

/* The value of @f in @base, or NULL for a section or list. */
static char *
field_value(const CfgField *f, gconstpointer base)
{
  const char *p = (const char *)base + f->offset;
  switch (f->type) {
  case CFG_FIELD_UINT:
    return g_strdup_printf("%u", *(const guint *)p);
  case CFG_FIELD_UINT64:
    return g_strdup_printf("%" G_GUINT64_FORMAT, *(const guint64 *)p);
  case CFG_FIELD_DOUBLE:
    return number(*(const double *)p);
  case CFG_FIELD_BOOL:
    return g_strdup(*(const gboolean *)p ? "true" : "false");
  case CFG_FIELD_ENUM:
    return g_strdup(f->names[*(const int *)p]);
  case CFG_FIELD_STRING:
    return g_strdup_printf("\"%s\"", *(char *const *)p ? *(char *const *)p : "");
  default:
    return NULL;
  }
}

static void
man_field(GString *out, const CfgField *f, gconstpointer base)
{
  g_string_append(out, ".TP\n\\fB");
  roff(out, f->key, TRUE);
  g_string_append(out, "\\fR (");
  g_autoptr(GString) type = g_string_new(NULL);
  field_type(type, f);
  g_autofree char *def = base ? field_value(f, base) : NULL;
  if (def)
    g_string_append_printf(type, "; default %s", def);
  roff(out, type->str, FALSE);
  g_string_append(out, ")\n");
  roff(out, f->doc ? f->doc : "", FALSE);
  g_string_append(out, "\n");
}

static void
man_page_5(GString *out)
{
  g_string_append_printf(
      out,
      ".TH SMSIM\\-CONFIG 5 \"\" \"smsim %s\" \"File Formats\"\n"
      ".SH NAME\n"
      "smsim\\-config \\- the GPU and kernel files of smsim(1)\n"
      ".SH DESCRIPTION\n"
      "Both are YAML: one document whose root is a mapping.  A key not listed here, a value of "
      "the wrong type or out of its range is an error naming the file, line and column.  Every "
      "key may also be given on the command line as \\fB\\-\\-set\\fR \\fIKEY\\fR=\\fIVALUE\\fR, "
      "GPU keys by their dotted path (\\fBlimits.max_warps\\fR, "
      "\\fBmemory.dram.latency_cycles\\fR).  \\fBsmsim describe\\fR \\fIGPU\\fR prints a GPU "
      "with every default filled in; \\fBsmsim describe\\fR \\fIKERNEL\\fR a kernel's "
      "parameters.\n"
      ".SH GPU FILES\n",
      SMSIM_VERSION);
  GError *error = NULL;
  /* every default, and the one section a GPU must have (its values not shown) */
  g_autoptr(CfgNode) empty = cfg_load_string(
      "defaults", "memory: {dram: {latency_cycles: 1, bytes_per_cycle: 1}}", &error);
  g_autoptr(CfgGpu) defaults = empty ? cfg_gpu_load(empty, &error) : NULL;
  g_clear_error(&error);
  guint n_tables;
  const CfgFieldTable *tables = cfg_gpu_field_tables(&n_tables);
  for (guint t = 0; t < n_tables; t++) {
    const CfgFieldTable *table = &tables[t];
    const char *section = table->section;
    if (*section == '\0')
      g_string_append(out, ".SS The top level\n");
    else if (strcmp(section, "units.*") == 0)
      g_string_append(out, ".SS units.UNIT (alu, sfu, ldst)\n");
    else if (strcmp(section, "memory.*") == 0)
      g_string_append(out, ".SS memory.LEVEL (each level a section of memory, by its name)\n");
    else
      g_string_append_printf(out, ".SS %s\n", section);
    for (guint f = 0; f < table->n_fields; f++)
      man_field(out, &table->fields[f], table->in_gpu ? (gconstpointer)defaults : NULL);
  }
  g_string_append(out, ".SH KERNEL FILES\n"
                       "A kernel file either declares an instruction stream (\\fBstream\\fR) or "
                       "runs a real kernel's SASS (\\fBsass\\fR, \\fBfunction\\fR, "
                       "\\fBarguments\\fR).  Values may be expressions of the parameters "
                       "(\\fB$alpha * 2\\fR).\n");
  guint n;
  const CfgField *kf = cfg_kernel_fields(&n);
  for (guint f = 0; f < n; f++)
    man_field(out, &kf[f], NULL);
  g_string_append(out, ".SH SEE ALSO\n\\fBsmsim\\fR(1); docs/config.md.\n");
}

int
sm_print_man_page(const char *section)
{
  g_autoptr(GString) out = g_string_new(NULL);
  if (strcmp(section, "1") == 0)
    man_page_1(out);
  else if (strcmp(section, "5") == 0)
    man_page_5(out);
  else
    return sm_cli_usage("--man-page takes 1 (smsim) or 5 (smsim-config)");
  fputs(out->str, stdout);
  return 0;
}

/* ---- bash completion ---- */

int
sm_print_completion(const char *shell)
{
  if (strcmp(shell, "bash") != 0)
    return sm_cli_usage("--completion takes bash");
  g_autoptr(GString) out = g_string_new(NULL);
  guint n;
  const SmCommand *commands = sm_commands(&n);
  g_string_append(out, "# bash completion for smsim (smsim --completion bash writes it)\n"
                       "_smsim_options() { # command -> \"options\" and \"options that take a "
                       "value\"\n"
                       "  case $1 in\n");
  for (guint c = 0; c < n; c++) {
    Options *o = options_of(&commands[c]);
    g_autoptr(GString) all = g_string_new("--help");
    g_autoptr(GString) valued = g_string_new("");
    for (guint i = 0; i < o->entries->len; i++) {
      const GOptionEntry *e = &g_array_index(o->entries, GOptionEntry, i);
      g_string_append_printf(all, " --%s", e->long_name);
      if (e->arg != G_OPTION_ARG_NONE)
        g_string_append_printf(valued, "%s--%s", valued->len ? "|" : "", e->long_name);
      if (e->short_name && e->arg != G_OPTION_ARG_NONE)
        g_string_append_printf(valued, "|-%c", e->short_name);
    }
    g_string_append_printf(out, "    %s) opts=\"%s\"; valued=\"%s\" ;;\n", commands[c].name,
                           all->str, valued->str);
    options_free(o);
  }
  g_string_append(out, "    *) opts=\"\"; valued=\"\" ;;\n  esac\n}\n\n_smsim() {\n"
                       "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
                       "  COMPREPLY=()\n"
                       "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
                       "    COMPREPLY=($(compgen -W \"");
  for (guint c = 0; c < n; c++)
    g_string_append_printf(out, "%s ", commands[c].name);
  g_string_append(
      out,
      "--help --version\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  local cmd=${COMP_WORDS[1]} opts valued\n"
      "  _smsim_options \"$cmd\"\n"
      "  # the positional words before this one (an option's value is not one)\n"
      "  local -a pos=()\n"
      "  local i w skip=0\n"
      "  for ((i = 2; i < COMP_CWORD; i++)); do\n"
      "    w=${COMP_WORDS[i]}\n"
      "    if [ $skip -eq 1 ]; then skip=0; continue; fi\n"
      "    if [[ $w == -* ]]; then\n"
      "      [[ $w != *=* && \"|$valued|\" == *\"|$w|\"* ]] && skip=1\n"
      "      continue\n"
      "    fi\n"
      "    pos+=(\"$w\")\n"
      "  done\n"
      "  if [[ \"|$valued|\" == *\"|$prev|\"* ]]; then\n"
      "    case $prev in\n"
      "      --set|-s|--vary|-v|--free|-f)\n"
      "        [[ $cur == *=* ]] && return\n"
      "        local keys\n"
      "        keys=$(smsim list keys --names \"${pos[0]}\" ${pos[1]:+\"${pos[1]}\"} "
      "2>/dev/null)\n"
      "        COMPREPLY=($(compgen -W \"$keys\" -- \"$cur\"))\n"
      "        compopt -o nospace 2>/dev/null\n"
      "        COMPREPLY=(\"${COMPREPLY[@]/%/=}\")\n"
      "        ;;\n"
      "      --kernel|-k)\n"
      "        COMPREPLY=($(compgen -W \"$(smsim list kernels --names 2>/dev/null)\" -- "
      "\"$cur\") $(compgen -f -- \"$cur\"))\n"
      "        ;;\n"
      "      *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
      "    esac\n"
      "    return\n"
      "  fi\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  local names=\"\"\n"
      "  case $cmd:${#pos[@]} in\n"
      "    run:0|sweep:0|validate:0|fit:0|occupancy:0) names=$(smsim list gpus --names "
      "2>/dev/null) ;;\n"
      "    run:1|sweep:1) names=$(smsim list kernels --names 2>/dev/null) ;;\n"
      "    describe:0) names=$(smsim list --names 2>/dev/null) ;;\n"
      "    list:0) names=\"gpus kernels keys\" ;;\n"
      "    explain:0) names=$(smsim explain 2>/dev/null | awk '/^  /{print $1}') ;;\n"
      "    explain:1|explain:2) [ \"${pos[0]}\" = littles-law ] && names=$(smsim list "
      "\"$([ ${#pos[@]} = 1 ] && echo gpus || echo kernels)\" --names 2>/dev/null) ;;\n"
      "    list:1) [ \"${pos[0]}\" = keys ] && names=$(smsim list gpus --names 2>/dev/null) ;;\n"
      "    list:2) [ \"${pos[0]}\" = keys ] && names=$(smsim list kernels --names 2>/dev/null) "
      ";;\n"
      "  esac\n"
      "  COMPREPLY=($(compgen -W \"$names\" -- \"$cur\"))\n"
      "  case $cmd in list|explain) ;; *) COMPREPLY+=($(compgen -f -- \"$cur\")) ;; esac\n"
      "}\n"
      "complete -o filenames -F _smsim smsim\n");
  fputs(out->str, stdout);
  return 0;
}
