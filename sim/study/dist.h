/* Running one batch over several processes: MPI ranks when smsim is built with MPI and started
 * by mpirun or srun with more than one rank; a single process otherwise.  Not the batch itself
 * (batch.c) nor shards of a sweep run as separate jobs (sweep.c). */
#pragma once

#include "batch.h"

/* Starts MPI when built with it (the thread that calls this does all MPI calls); fails when
 * several ranks run a build without MPI, which would all write the same files. */
gboolean sm_dist_init(int *argc, char ***argv, GError **error);
void sm_dist_finalize(void);
/* This process's rank and the number of ranks (0 and 1 without MPI). */
guint sm_dist_rank(void);
guint sm_dist_size(void);
/* Whether this build can use MPI at all. */
gboolean sm_dist_available(void);

/* Runs @batch over all ranks: rank 0 hands out slices of points as ranks ask for them and
 * gathers the results into @results (other ranks' @results stay unset); every rank runs its
 * slices with batch->jobs threads.  Every rank must call it with the same batch. */
gboolean sm_dist_batch_run(const SmBatch *batch, SmPointResult *results, GError **error);
