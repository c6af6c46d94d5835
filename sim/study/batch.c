/* The thread pool behind sweep and validate: loads every point once to check it, then runs
 * them in parallel into a results array indexed like the points.  Prints nothing. */
#include "batch.h"

#include "../sm.h"

typedef struct {
  const SmBatch *batch;
  SmPointResult *results;
  GMutex lock;
  GCond cond;
  guint done;
  GError *error; /* the first run that failed */
} Batch;

/* Rough cost of a run, only to start the longest runs first: warp-instructions, with memory
 * streams weighted up (global memory is stepped through, and shared memory couples the
 * schedulers, which often keeps the SM from repeating its state; other deterministic loops
 * mostly repeat a period the SM jumps over). */
static double
run_cost(const CfgKernel *k)
{
  const IsaProgram *prog = k->program;
  gboolean memory = FALSE;
  for (guint i = 0; i < prog->n_insns && !memory; i++)
    memory = prog->insns[i].kind == ISA_INSN_OP &&
             isa_op_info(prog->insns[i].op)->space != ISA_SPACE_NONE;
  double work = (double)prog->dynamic_count * MAX(k->warps_per_block, 1u) * k->grid_blocks;
  return memory ? work : work / 16;
}

/* Threads all runs of a batch share (sm_batch_set_threads). */
static guint batch_threads = 1;

void
sm_batch_set_threads(guint n)
{
  batch_threads = MAX(n, 1u);
}

SmRunEnd
sm_run_bounded(SmGpu *sm, guint64 max_cycles, const SmRunBounds *bounds)
{
  if (bounds == NULL || (bounds->cancel == NULL && bounds->deadline == 0)) {
    sm_run_until(sm, max_cycles);
  } else {
    /* slices that take 10 to 50 ms: doubled while faster, halved while slower */
    guint64 slice = 4096;
    while (!sm_finished(sm) && !sm_stop_requested() && sm_now(sm) < max_cycles) {
      if (bounds->cancel && g_atomic_int_get(bounds->cancel))
        return SM_RUN_CANCELLED;
      gint64 start = g_get_monotonic_time();
      if (bounds->deadline && start >= bounds->deadline)
        return SM_RUN_DEADLINE;
      sm_run_until(sm, sm_now(sm) + MIN(slice, max_cycles - sm_now(sm)));
      gint64 took = g_get_monotonic_time() - start;
      if (took < 10000 && slice < (1ull << 40))
        slice *= 2;
      else if (took > 50000 && slice > 64)
        slice /= 2;
    }
  }
  if (sm_stop_requested())
    return SM_RUN_STOPPED;
  return sm_finished(sm) || sm_now(sm) < max_cycles ? SM_RUN_FINISHED : SM_RUN_MAX_CYCLES;
}

static gboolean
run_point(const SmBatch *batch, guint i, SmPointResult *r, double *cost, GError **error)
{
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  const CfgRunSource *src = batch->srcs ? batch->srcs[i] : batch->src;
  if (!cfg_load_run_text(src, batch->sets, g_ptr_array_index(batch->points, i), &gpu, &kernel,
                         error))
    return FALSE;
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  if (r == NULL) {
    if (cost)
      *cost = run_cost(k);
    return TRUE;
  }
  g_autoptr(SmGpu) sm = sm_new(g, k);
  sm_set_threads(sm, batch->threads_per_run);
  guint64 max_cycles = batch->max_cycles ? batch->max_cycles : SM_DEFAULT_MAX_CYCLES;
  sm_run_until(sm, max_cycles);
  if (sm_stop_requested())
    return TRUE;      /* the batch reports the interruption */
  if (sm_error(sm)) { /* a kernel over SASS that went wrong: say where, and which run */
    g_autofree char *what = g_strjoinv(" ", (char **)g_ptr_array_index(batch->points, i));
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "the run of %s: %s",
                what[0] ? what : "the kernel", sm_error(sm)->message);
    return FALSE;
  }
  if (!sm_finished(sm)) {
    g_autofree char *what = g_strjoinv(" ", (char **)g_ptr_array_index(batch->points, i));
    g_set_error(error, CFG_ERROR, CFG_ERROR_LIMIT,
                "the run of %s stopped at cycle %" G_GUINT64_FORMAT
                " (--max-cycles %" G_GUINT64_FORMAT "): it was not finished",
                what[0] ? what : "the kernel", sm_now(sm), max_cycles);
    return FALSE;
  }
  r->stats = *sm_stats(sm);
  r->warps = k->warps_per_sm;
  r->has_model = sm_model_mix(g, k, &r->model);
  if (batch->measure)
    r->metric = batch->measure(g, k, &r->stats, batch->first_point + i, batch->measure_data);
  return TRUE;
}

static void
batch_worker(gpointer data, gpointer user)
{
  Batch *b = user;
  guint i = GPOINTER_TO_UINT(data) - 1;
  /* every point loaded once already: this cannot fail */
  GError *error = NULL;
  if (!sm_stop_requested() && !run_point(b->batch, i, &b->results[i], NULL, &error))
    sm_request_stop(); /* a failed run ends the batch: the others stop too */
  g_mutex_lock(&b->lock);
  if (error && b->error == NULL)
    b->error = error;
  else if (error)
    g_error_free(error);
  b->done++;
  g_cond_signal(&b->cond);
  g_mutex_unlock(&b->lock);
}

static gint
by_cost(gconstpointer a, gconstpointer b, gpointer data)
{
  const double *cost = data;
  guint x = *(const guint *)a, y = *(const guint *)b;
  if (cost[x] != cost[y])
    return cost[x] > cost[y] ? -1 : 1;
  return x < y ? -1 : x > y; /* equal costs keep their order */
}

gboolean
sm_batch_run(const SmBatch *batch, SmPointResult *results, GError **error)
{
  GPtrArray *points = batch->points;
  g_autofree double *cost = g_new(double, MAX(points->len, 1u));
  for (guint i = 0; i < points->len; i++)
    if (!run_point(batch, i, NULL, &cost[i], error))
      return FALSE;
  if (batch->check_only)
    return TRUE;
  guint jobs = batch->jobs ? batch->jobs : MAX(1u, g_get_num_processors());
  /* the runs at once share the threads: none more than the cores asked for */
  SmBatch shared = *batch;
  shared.threads_per_run = MAX(batch_threads / MAX(MIN(jobs, points->len), 1u), 1u);
  batch = &shared;
  Batch b = {.batch = batch, .results = results};
  g_mutex_init(&b.lock);
  g_cond_init(&b.cond);
  GThreadPool *pool = g_thread_pool_new(batch_worker, &b, (gint)MIN(jobs, points->len), TRUE, NULL);
  /* longest first, so that no long run starts last while the other threads idle; results go
   * to their own index whatever the order */
  g_autofree guint *order = g_new(guint, MAX(points->len, 1u));
  for (guint i = 0; i < points->len; i++)
    order[i] = i;
  g_qsort_with_data(order, (gint)points->len, sizeof *order, by_cost, cost);
  for (guint i = 0; i < points->len; i++)
    g_thread_pool_push(pool, GUINT_TO_POINTER(order[i] + 1), NULL);
  SmProgressFunc progress = batch->progress;
  gpointer progress_data = batch->progress_data;
  g_mutex_lock(&b.lock);
  while (b.done < points->len) {
    if (progress) {
      guint done = b.done;
      g_mutex_unlock(&b.lock);
      progress(done, points->len, progress_data);
      g_mutex_lock(&b.lock);
    }
    g_cond_wait_until(&b.cond, &b.lock, g_get_monotonic_time() + 200 * G_TIME_SPAN_MILLISECOND);
  }
  g_mutex_unlock(&b.lock);
  if (progress)
    progress(points->len, points->len, progress_data);
  g_thread_pool_free(pool, FALSE, TRUE);
  g_mutex_clear(&b.lock);
  g_cond_clear(&b.cond);
  if (b.error) {
    g_propagate_error(error, b.error);
    return FALSE;
  }
  if (sm_stop_requested()) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "interrupted");
    return FALSE;
  }
  return TRUE;
}
