/*
 * front/doctor: `hearth doctor` — the settings' server (and --server,
 * HEARTH_SERVER, OPENAI_BASE_URL, OPENAI_API_KEY as a session would use
 * them) checked by llama/doctor.h, the report on stdout.
 *
 * Exit status: 0 nothing to change, 1 problems found (each with its
 * flag), 3 no server answered (the message on stderr).
 */
#ifndef HEARTH_FRONT_DOCTOR_H
#define HEARTH_FRONT_DOCTOR_H

#include "front/cli.h"

int front_doctor_main(const struct front_cli *o);

#endif
