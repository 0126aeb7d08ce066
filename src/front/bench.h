/*
 * front/bench: `hearth bench`, the users' own benchmark (docs/bench.md).
 *
 * For each trial, problem and agent: the problem (front/bench_problem.h)
 * is copied into a fresh mkdtemp directory made a git repository; the
 * agent runs there (a child through io/proc on bench's own loop, in its
 * own session, with a per-trial timeout) with PROBLEM.md as its one
 * last argument; then the problem's frozen tests run there and are
 * counted.  A change to tests/ (compared byte for byte with what was
 * copied) scores the trial 0.  Around the agent, llama-server's /metrics
 * counters are read (when the server answers) for the tokens processed and
 * generated; when the agent is hearth, its json result gives the steps,
 * escalations and Claude cost.  The trial directory is removed afterwards
 * (--keep leaves it).
 *
 * The agent's environment is the user's (ENV_USER: the agent is a program
 * the user chose) without secret-named variables, plus --pass-env NAMEs,
 * HEARTH_SERVER (when a server is given), HEARTH_BENCH_PROBLEM and
 * HEARTH_BENCH_TRIAL.  The tests run with the clean environment.
 *
 * This is a separate mode of the binary: it has no screen; its loop only
 * waits for the one child or request in flight, and file work (copy,
 * compare, remove) happens between them, never in a callback.
 */
#ifndef HEARTH_FRONT_BENCH_H
#define HEARTH_FRONT_BENCH_H

/* `hearth bench ARGS...` (argv[0] is "bench"); the exit code. */
int front_bench_main(int argc, char **argv);

#endif
