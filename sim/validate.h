/* smsim validate: replays measured microbenchmarks and reports the error. */
#pragma once

int sm_cmd_validate(int argc, char **argv);
