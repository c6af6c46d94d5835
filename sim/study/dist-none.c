/* Runs on one process: this build has no MPI.  Several ranks of it would each run the whole
 * batch and write the same files, so starting it under mpirun or srun is refused. */
#include <stdlib.h>

#include "dist.h"

gboolean
sm_dist_init(int *argc, char ***argv, GError **error)
{
  /* what Open MPI's mpirun and MPICH's (or Slurm's PMI) launchers tell each rank */
  static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"};
  for (guint i = 0; i < G_N_ELEMENTS(size_vars); i++) {
    const char *v = g_getenv(size_vars[i]);
    if (v != NULL && atoi(v) > 1) {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                  "smsim: started as one of %s MPI ranks, but this build has no MPI "
                  "(rebuild with meson setup -Dmpi=enabled, or use --shard)",
                  v);
      return FALSE;
    }
  }
  return TRUE;
}

void
sm_dist_finalize(void)
{
}

guint
sm_dist_rank(void)
{
  return 0;
}

guint
sm_dist_size(void)
{
  return 1;
}

gboolean
sm_dist_available(void)
{
  return FALSE;
}

gboolean
sm_dist_batch_run(const SmBatch *batch, SmPointResult *results, GError **error)
{
  return sm_batch_run(batch, results, error);
}
