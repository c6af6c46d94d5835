#include "stats.h"

static const char *const state_names[SM_STATE_COUNT] = {
    "selected",           "not_selected", "wait",         "long_scoreboard", "short_scoreboard",
    "math_pipe_throttle", "lg_throttle",  "mio_throttle", "barrier",         "no_instruction",
};

const char *
sm_state_name(SmState state)
{
  g_return_val_if_fail(state < SM_STATE_COUNT, "?");
  return state_names[state];
}
