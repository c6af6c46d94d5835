/* What the lab's files share (lab.h is the lab's interface): the catalogue's entries, one-line
 * refusals, and a request as read from its JSON.  catalogue.c reads the GPUs and kernels,
 * request.c reads requests, lab.c runs them. */
#pragma once

#include "../../config/kernel.h"
#include "lab.h"

/* A GPU or kernel file of the catalogue, read once. */
typedef struct {
  char *name, *path, *text;
  JsonNode *json; /* what "gpus" or "kernels" lists for it */
} SmLabEntry;

struct SmLab {
  SmLabLimits limits;
  GPtrArray *gpus, *kernels; /* SmLabEntry */
};

/* Sets an SM_LAB_ERROR of @code and returns FALSE. */
gboolean sm_lab_fail(GError **error, SmLabErrorCode code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
/* A load error from config/ as a bad request (frees @local), in its own words, or with the
 * catalogue's file @path named by @name ("mix.yaml:45:12: ...", not where this server keeps it;
 * @path NULL: as it is). */
gboolean sm_lab_bad_file(GError **error, GError *local, const char *path, const char *name);

/* The entry called @name, or NULL. */
const SmLabEntry *sm_lab_find(GPtrArray *entries, const char *name);
/* "no gpu 'h10' (did you mean 'h100'?)": FALSE with SM_LAB_ERROR_NOT_FOUND. */
gboolean sm_lab_not_found(GError **error, const char *what, const char *name, GPtrArray *entries);
/* What "gpus" lists for a loaded GPU (a new node). */
JsonNode *sm_lab_gpu_json(const char *name, const CfgGpu *gpu);

/* A request as read (request.c). */
typedef struct {
  CfgRunSource src; /* borrowed texts and names: never cleared */
  char *pasted;     /* the pasted GPU's text, owned */
  GPtrArray *sets;  /* "KEY=VALUE", NULL-terminated */
  gboolean picture, mark;
  char *warps;    /* the sweep's warps as --vary takes them */
  char *vary_key; /* the sweep's other key, or NULL */
  char *vary_values;
  const char *gpu_name;    /* the catalogue's name, or "pasted" */
  const char *kernel_name; /* the catalogue's name */
} SmLabRequest;

void sm_lab_request_clear(SmLabRequest *r);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SmLabRequest, sm_lab_request_clear)
/* Parses a request body of @kind ("run", "sweep", "gpu") into @r. */
gboolean sm_lab_read_request(const SmLab *lab, const char *kind, const char *body, gsize length,
                             SmLabRequest *r, GError **error);
/* The run's GPU and kernel, loaded and checked as the command line does, @vary applied last. */
gboolean sm_lab_load(const SmLabRequest *r, const char *const *vary, CfgGpu **gpu,
                     CfgKernel **kernel, GError **error);
