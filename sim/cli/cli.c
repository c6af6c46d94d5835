/* Option parsing, errors, progress and file writing shared by the commands. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../config/load.h"
#include "../sm.h"
#include "../study/plot.h"

/* The signal that asked us to stop (0: none). */
static volatile sig_atomic_t caught;

static SmCliOptionsFunc options_hook;
static gpointer options_hook_data;

void
sm_cli_set_options_hook(SmCliOptionsFunc fn, gpointer data)
{
  options_hook = fn;
  options_hook_data = data;
}

gboolean
sm_cli_parse(const char *command, const char *summary, const GOptionEntry *entries, int *argc,
             char ***argv)
{
  if (options_hook) {
    options_hook(command, summary, entries, options_hook_data);
    return FALSE;
  }
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

char *
sm_cli_find(const char *arg, CfgFindKind kind)
{
  GError *error = NULL;
  char *path = cfg_find_file(arg, kind, &error);
  if (path == NULL)
    sm_cli_fail(error);
  return path;
}

gboolean
sm_cli_find_pair(const char *gpu_arg, const char *kernel_arg, char **gpu_file, char **kernel_file)
{
  *kernel_file = NULL;
  *gpu_file = sm_cli_find(gpu_arg, CFG_FIND_GPU);
  if (*gpu_file == NULL)
    return FALSE;
  if (kernel_arg && (*kernel_file = sm_cli_find(kernel_arg, CFG_FIND_KERNEL)) == NULL) {
    g_clear_pointer(gpu_file, g_free);
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
sm_cli_write_error(GError *error)
{
  if (caught) {
    g_error_free(error);
    return 128 + caught;
  }
  fprintf(stderr, "%s\n", error->message);
  g_error_free(error);
  return 1;
}

int
sm_cli_usage_error(const char *msg)
{
  fprintf(stderr, "%s\n", msg);
  return 2;
}

static void
on_signal(int sig)
{
  caught = sig;
  sm_request_stop();
}

void
sm_cli_catch_signals(void)
{
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int
sm_cli_interrupted(const char *command)
{
  if (caught == 0)
    return 0;
  fprintf(stderr, "smsim %s: interrupted by %s; no output written\n", command,
          caught == SIGINT ? "SIGINT" : "SIGTERM");
  return 128 + caught;
}

int
sm_cli_fail(GError *error)
{
  if (caught) { /* the interruption is reported once, by sm_cli_interrupted() */
    g_error_free(error);
    return 128 + caught;
  }
  if (g_error_matches(error, CFG_ERROR, CFG_ERROR_LIMIT))
    return sm_cli_write_error(error); /* not bad input: status 1 */
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

gboolean
sm_cli_threads(gint threads, guint *out)
{
  if (threads < 0 || threads > 1024) {
    fprintf(stderr, "--threads %d: must be from 1 to 1024\n", threads);
    return FALSE;
  }
  *out = threads ? (guint)threads : (guint)MAX(g_get_num_processors(), 1);
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

/* Writes all of @text to @fd; FALSE with errno set on failure. */
static gboolean
write_all(int fd, const char *text, gsize n)
{
  while (n > 0) {
    gssize w = write(fd, text, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (w == 0)
        errno = ENOSPC;
      return FALSE;
    }
    text += w;
    n -= (gsize)w;
  }
  return TRUE;
}

gboolean
sm_cli_write_file(const char *path, const char *text)
{
  return sm_cli_write_bytes(path, text, strlen(text));
}

gboolean
sm_cli_write_bytes(const char *path, const void *data, gsize n)
{
  const char *text = data;
  GStatBuf st;
  if (g_stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    /* a device or a pipe (/dev/stdout, /dev/full): write to it, never rename over it */
    int fd = g_open(path, O_WRONLY | O_TRUNC, 0);
    gboolean ok = fd >= 0 && write_all(fd, text, n);
    int err = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
      ok = FALSE;
      err = errno;
    }
    if (!ok)
      fprintf(stderr, "%s: cannot write: %s\n", path, g_strerror(err));
    return ok;
  }
  /* a regular file: a temporary name in the same folder, then renamed */
  g_autofree char *tmp = g_strdup_printf("%s.XXXXXX", path);
  int fd = g_mkstemp_full(tmp, O_WRONLY, 0644);
  if (fd < 0) {
    fprintf(stderr, "%s: cannot write: %s\n", path, g_strerror(errno));
    return FALSE;
  }
  gboolean ok = write_all(fd, text, n) && fsync(fd) == 0;
  int err = errno;
  if (close(fd) != 0 && ok) {
    ok = FALSE;
    err = errno;
  }
  if (ok && caught) {
    ok = FALSE; /* interrupted: no file under the final name */
    err = EINTR;
  }
  if (ok && g_rename(tmp, path) != 0) {
    ok = FALSE;
    err = errno;
  }
  if (!ok) {
    g_unlink(tmp);
    if (!caught)
      fprintf(stderr, "%s: cannot write: %s\n", path, g_strerror(err));
  }
  return ok;
}

int
sm_cli_finish_stdout(int status)
{
  if (fflush(stdout) != 0 || ferror(stdout)) {
    int err = errno;
    fprintf(stderr, "stdout: cannot write: %s\n", g_strerror(err ? err : EIO));
    return status == 0 ? 1 : status;
  }
  return status;
}

gboolean
sm_cli_max_cycles(const char *text, guint64 *out)
{
  *out = SM_DEFAULT_MAX_CYCLES;
  if (text && !g_ascii_string_to_unsigned(text, 10, 1, G_MAXUINT64 / 4, out, NULL)) {
    fprintf(stderr, "--max-cycles %s: expected a whole number of cycles, at least 1\n", text);
    return FALSE;
  }
  return TRUE;
}
