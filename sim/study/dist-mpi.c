/* Batches over MPI ranks.  Rank 0 is the dispatcher: ranks ask for work with the results of
 * their last slice, rank 0 answers with the next slice of consecutive points (smaller as the
 * batch nears its end, so long points do not leave ranks idle) or with an empty slice to
 * stop.  Results travel as bytes: every rank runs the same binary. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "dist.h"

enum { TAG_READY = 1, TAG_WORK = 2 };

static int rank, size = 1;
static gboolean started;
static FILE *report; /* this rank's own stderr, even when the command line silences it */

/* Started by an MPI launcher (mpirun, mpiexec, srun): it tells each rank who it is.  Without
 * one, MPI is not started at all (a singleton start costs about half a second). */
static gboolean
launched_by_mpi(void)
{
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK",
                                     "MPI_LOCALNRANKS"};
  for (guint i = 0; i < G_N_ELEMENTS(vars); i++)
    if (g_getenv(vars[i]) != NULL)
      return TRUE;
  return FALSE;
}

gboolean
sm_dist_init(int *argc, char ***argv, GError **error)
{
  if (!launched_by_mpi())
    return TRUE;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "smsim: MPI could not start");
    return FALSE;
  }
  started = TRUE;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  report = fdopen(dup(STDERR_FILENO), "w");
  return TRUE;
}

void
sm_dist_finalize(void)
{
  if (started)
    MPI_Finalize();
  started = FALSE;
  if (report)
    fclose(report);
  report = NULL;
}

guint
sm_dist_rank(void)
{
  return (guint)rank;
}

guint
sm_dist_size(void)
{
  return (guint)size;
}

gboolean
sm_dist_available(void)
{
  return TRUE;
}

/* One finished point as it travels: the model's bound as a number, not a pointer. */
typedef struct {
  guint32 index;
  guint32 bound;
  SmPointResult r;
} Packed;

/* Runs points [lo, hi) of @batch on this rank's threads into @out (hi - lo entries). */
static gboolean
run_slice(const SmBatch *batch, guint lo, guint hi, Packed *out, GError **error)
{
  g_autoptr(GPtrArray) points = g_ptr_array_sized_new(hi - lo);
  for (guint i = lo; i < hi; i++)
    g_ptr_array_add(points, g_ptr_array_index(batch->points, i));
  SmBatch slice = *batch;
  slice.points = points;
  slice.srcs = batch->srcs ? batch->srcs + lo : NULL;
  slice.first_point = batch->first_point + lo;
  slice.progress = NULL;
  g_autofree SmPointResult *r = g_new0(SmPointResult, hi - lo);
  if (!sm_batch_run(&slice, r, error))
    return FALSE;
  for (guint i = lo; i < hi; i++) {
    out[i - lo] = (Packed){.index = i, .r = r[i - lo]};
    out[i - lo].bound = sm_model_bound_index(r[i - lo].model.bound);
    out[i - lo].r.model.bound = NULL;
  }
  return TRUE;
}

static void
worker(const SmBatch *batch)
{
  g_autoptr(GArray) done = g_array_new(FALSE, FALSE, sizeof(Packed));
  for (;;) {
    MPI_Send(done->data, (int)(done->len * sizeof(Packed)), MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
    guint32 range[2];
    MPI_Recv(range, 2, MPI_UINT32_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (range[0] == range[1])
      return;
    g_array_set_size(done, range[1] - range[0]);
    GError *error = NULL;
    if (!run_slice(batch, range[0], range[1], (Packed *)done->data, &error)) {
      fprintf(report ? report : stderr, "smsim rank %d: points %u to %u failed: %s\n", rank,
              range[0] + 1, range[1], error->message);
      fflush(report ? report : stderr);
      g_error_free(error);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

static void
dispatcher(const SmBatch *batch, SmPointResult *results)
{
  guint total = batch->points->len, next = 0, finished = 0, active = (guint)size - 1;
  gint64 shown = 0;
  gboolean ended = FALSE; /* the final progress call (done == total) was made */
  while (active > 0) {
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, TAG_READY, MPI_COMM_WORLD, &st);
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    g_autofree Packed *got = g_malloc(MAX(bytes, 1));
    MPI_Recv(got, bytes, MPI_BYTE, st.MPI_SOURCE, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    guint n = (guint)bytes / sizeof(Packed);
    for (guint i = 0; i < n; i++) {
      results[got[i].index] = got[i].r;
      results[got[i].index].model.bound = sm_model_bound_name(got[i].bound);
    }
    finished += n;
    /* slices shrink as the batch nears its end: a quarter of the rest per rank, 1 to 64 */
    guint left = total - next;
    guint take = MIN(left, CLAMP(left / (4 * ((guint)size - 1)), 1u, 64u));
    guint32 range[2] = {next, next + take};
    next += take;
    if (take == 0)
      active--;
    MPI_Send(range, 2, MPI_UINT32_T, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
    gboolean last = finished == total && !ended;
    if (batch->progress &&
        (last || (finished < total && g_get_monotonic_time() - shown > 200000))) {
      shown = g_get_monotonic_time();
      batch->progress(finished, total, batch->progress_data);
    }
    ended |= last;
  }
}

gboolean
sm_dist_batch_run(const SmBatch *batch, SmPointResult *results, GError **error)
{
  if (size < 2)
    return sm_batch_run(batch, results, error);
  /* every rank checks every point first: bad input fails everywhere, before anything runs */
  SmBatch check = *batch;
  check.check_only = TRUE;
  if (!sm_batch_run(&check, NULL, error))
    return FALSE;
  if (rank == 0)
    dispatcher(batch, results);
  else
    worker(batch);
  return TRUE;
}
