/* smsim occupancy: the occupancy calculator on the command line. */
#pragma once

int sm_cmd_occupancy(int argc, char **argv);
