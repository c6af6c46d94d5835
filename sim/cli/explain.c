/* smsim explain: what each warp state, report line and model number means, in a few lines each,
 * with the formula where one is used; with a GPU and a kernel, the Little's-law numbers of both
 * describe and run worked out from their inputs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../study/explain.h"
#include "../study/model.h"
#include "cli.h"
#include "commands.h"

/* Both Little's-law numbers for @gpu_arg and @kernel_arg, with their inputs. */
static int
explain_littles_law(const char *gpu_arg, const char *kernel_arg)
{
  g_autofree char *gpu_path = NULL, *kernel_path = NULL;
  if (!sm_cli_find_pair(gpu_arg, kernel_arg, &gpu_path, &kernel_path))
    return 2;
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  GError *error = NULL;
  if (!cfg_load_run(gpu_path, kernel_path, NULL, &gpu, &kernel, &error))
    return sm_cli_fail(error);
  SmModelPoint m;
  g_autoptr(GPtrArray) lines = NULL;
  gboolean ok = sm_explain_littles_law(gpu, kernel, &m, &lines);
  if (ok) {
    printf("Little's law for %s on %s (warps, one chain each)\n", kernel->name, gpu->name);
    for (guint i = 0; i < lines->len; i++) {
      const SmLittle *l = g_ptr_array_index(lines, i);
      printf("  %-9s %s = %.1f warps\n", l->name[0] == 'd' ? "describe:" : "run:", l->how,
             l->warps);
    }
    printf("  at %.0f warps: latency bound %.4f IPC, throughput bound %.4f IPC\n", m.warps,
           m.latency_bound, m.throughput_bound);
    if (m.warps_needed > gpu->limits.max_warps)
      printf("  %.1f warps is more than the %u this GPU holds per SM: warps alone cannot hide "
             "the latency (more ILP, or fewer cycles a group, would)\n",
             m.warps_needed, gpu->limits.max_warps);
  } else {
    printf("%s has no mix parameters (alpha, other): Volkov's model does not apply; 'smsim "
           "describe %s' gives Little's law for each unit and memory level alone\n",
           kernel->name, gpu_arg);
  }
  cfg_kernel_free(kernel);
  cfg_gpu_free(gpu);
  return 0;
}

int
sm_cmd_explain(int argc, char **argv)
{
  const GOptionEntry entries[] = {{NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("explain",
                    "[TOPIC [GPU KERNEL]] - what a warp state, report line or model number "
                    "means",
                    entries, &argc, &argv))
    return 2;
  guint n_topics;
  const SmExplainTopic *topics = sm_explain_topics(&n_topics);
  if (argc == 1) {
    printf("smsim explain TOPIC: what it means.  Topics:\n");
    for (guint i = 0; i < n_topics; i++) {
      if (i == 0)
        printf("warp states (the run report's, by Nsight Compute's names):\n");
      if (strcmp(topics[i].topic, "cycles") == 0)
        printf("the report and the model:\n");
      printf("  %-20s %s\n", topics[i].topic, topics[i].summary);
    }
    return 0;
  }
  const char *want = argv[1];
  for (guint i = 0; i < n_topics; i++) {
    if (g_ascii_strcasecmp(topics[i].topic, want) != 0)
      continue;
    if (argc > 2 && strcmp(topics[i].topic, "littles-law") != 0)
      return sm_cli_usage("only 'explain littles-law' takes a GPU and a kernel");
    if (argc == 3 || argc > 4)
      return sm_cli_usage("explain littles-law takes a GPU and a kernel, or neither");
    printf("%s: %s\n%s\n", topics[i].topic, topics[i].summary, topics[i].body);
    if (argc == 4) {
      printf("\n");
      fflush(stdout);
      return explain_littles_law(argv[2], argv[3]);
    }
    return 0;
  }
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (guint i = 0; i < n_topics; i++)
    cfg_nearer(want, topics[i].topic, &best, &best_d);
  g_autofree char *msg =
      best ? g_strdup_printf("explain: no topic '%s'; did you mean '%s'? ('smsim explain' lists "
                             "them)",
                             want, best)
           : g_strdup_printf("explain: no topic '%s' ('smsim explain' lists them)", want);
  return sm_cli_usage_error(msg);
}
