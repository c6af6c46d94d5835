/* The smsim commands, one function each: argc/argv after the command word, returns the exit
 * status (0, 2 for bad input).  main.c dispatches to them. */
#pragma once

int sm_cmd_run(int argc, char **argv);
int sm_cmd_describe(int argc, char **argv);
int sm_cmd_sweep(int argc, char **argv);
int sm_cmd_merge(int argc, char **argv);
int sm_cmd_validate(int argc, char **argv);
int sm_cmd_fit(int argc, char **argv);
int sm_cmd_occupancy(int argc, char **argv);
