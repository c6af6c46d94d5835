/* The lab: what `smsim serve` answers, as JSON in and JSON out, without HTTP (server.c carries
 * it).  A catalogue of the GPUs and kernels found when it starts (their texts read once: no
 * request names a path), and runs and sweeps of them with parameters set as on the command line,
 * bounded in simulated cycles and wall time, cancellable from another thread.
 *
 * Requests (POST bodies, one JSON object each; unknown members are refused):
 *   run    {"gpu": NAME | "gpu_yaml": TEXT, "kernel": NAME, "set": {KEY: VALUE, ...},
 *           "picture": true}
 *          -> {"run": `smsim run --json`'s object, "picture_svg": the timeline picture,
 *              "peaks": {...}, "littles_law": [...], "seconds": wall time}
 *   sweep  the run's members, "warps": "A:B[:STEP]" or [N, ...] (default 1 to the GPU's most),
 *          "vary": {"key": KEY, "values": [V, ...]} (optional), "mark": true (the point of the
 *          run's own setting drawn on the plot)
 *          -> {"sweep": `smsim sweep --json`'s object, "plot_svg": throughput against warps with
 *              the model's lines, "seconds"}
 *   gpu    {"gpu_yaml": TEXT} -> the GPU as "gpus" lists it (a pasted GPU checked)
 * KEY is a parameter of the kernel or a GPU key by dotted path (memory.dram.latency_cycles),
 * never another key of the kernel file (sass, arguments: no file is named from a request). */
#pragma once

#include <json-glib/json-glib.h>

#define SM_LAB_ERROR (sm_lab_error_quark())
GQuark sm_lab_error_quark(void);
typedef enum {
  SM_LAB_ERROR_BAD_REQUEST, /* 400: not JSON, a missing or unknown member, a bad value */
  SM_LAB_ERROR_NOT_FOUND,   /* 404: no GPU, kernel or page of that name */
  SM_LAB_ERROR_TOO_LARGE,   /* 413: a body, pasted YAML or sweep beyond its bound */
  SM_LAB_ERROR_LIMIT,       /* 422: a run stopped by its bound of cycles or seconds */
  SM_LAB_ERROR_CANCELLED,   /* the client went away */
  SM_LAB_ERROR_BUSY,        /* 503: every job taken and the queue full */
  SM_LAB_ERROR_METHOD,      /* 405: GET where POST is wanted, or the other way */
  SM_LAB_ERROR_LENGTH,      /* 411: a body without its Content-Length */
} SmLabErrorCode;

typedef struct {
  guint64 max_cycles;     /* simulated cycles a run may take */
  double max_seconds;     /* wall time a request may take (a sweep's runs together) */
  gsize max_body_bytes;   /* a request body */
  gsize max_yaml_bytes;   /* a pasted GPU file */
  guint max_sweep_points; /* runs a sweep may ask for */
} SmLabLimits;

/* The bounds `smsim serve` uses unless told otherwise. */
#define SM_LAB_DEFAULT_MAX_CYCLES 50000000ull
#define SM_LAB_DEFAULT_MAX_SECONDS 30.0
#define SM_LAB_DEFAULT_MAX_BODY (256u << 10)
#define SM_LAB_DEFAULT_MAX_YAML (64u << 10)
#define SM_LAB_DEFAULT_MAX_POINTS 512u

typedef struct SmLab SmLab;

/* The catalogue of every GPU and kernel smsim finds by name now (config/find.h); NULL with an
 * error when there is no GPU or no kernel. */
SmLab *sm_lab_new(const SmLabLimits *limits, GError **error);
void sm_lab_free(SmLab *lab);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmLab, sm_lab_free)
const SmLabLimits *sm_lab_limits(const SmLab *lab);

/* GET answers (new nodes): the GPUs ("gpus": name, title, max_warps, peaks, the keys a lab
 * offers with their values and spans), the kernels ("kernels": name, description, each
 * parameter's default, meaning and range or choices), what each warp state and number means
 * ("states", "topics": smsim explain's texts), and the bounds ("limits"). */
JsonNode *sm_lab_gpus(const SmLab *lab);
JsonNode *sm_lab_kernels(const SmLab *lab);
JsonNode *sm_lab_explain(const SmLab *lab);
JsonNode *sm_lab_limits_json(const SmLab *lab);

/* POST answers (safe on any thread at once): @body is the request's text (@length bytes);
 * @cancel, when not NULL, stops the work once it is raised (g_atomic_int_set to 1). */
JsonNode *sm_lab_gpu(const SmLab *lab, const char *body, gsize length, GError **error);
JsonNode *sm_lab_run(const SmLab *lab, const char *body, gsize length, const gint *cancel,
                     GError **error);
JsonNode *sm_lab_sweep(const SmLab *lab, const char *body, gsize length, const gint *cancel,
                       GError **error);

/* The HTTP status for an error of SM_LAB_ERROR (500 for another domain). */
guint sm_lab_error_status(const GError *error);
/* {"error": message, "status": code}: what every refusal answers. */
JsonNode *sm_lab_error_json(const GError *error);
