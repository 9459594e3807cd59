/*===- executor/choreo.h - C interface to choreo's executor ------*- C -*-===*/
/**
 * \file
 * Run a proved choreo schedule from C or Fortran: create a plan once
 * (collective over the communicator), execute it as often as needed, free it.
 *
 *   choreo_buffers b;
 *   choreo_buffers_init(&b);
 *   b.sendbuf = mine;  b.sendbytes = 4096;
 *   b.recvbuf = all;   b.recvbytes = 4096 * q;
 *   choreo_plan plan;
 *   if (choreo_plan_create("kang.cbor", intercomm, &b, &plan) != CHOREO_OK)
 *     fprintf(stderr, "%s\n", choreo_last_error());
 *   choreo_plan_execute(plan);
 *   choreo_plan_free(&plan);
 *
 * or, overlapping the run with the caller's work:
 *
 *   choreo_plan_start(plan);
 *   int done = 0;
 *   while (!done) {
 *     compute_a_little();
 *     choreo_plan_test(plan, &done);
 *   }
 *
 * Every rank of the communicator gets the same result code from
 * choreo_plan_create: when any rank finds a problem (the schedule does not
 * verify, the communicator does not match it, a buffer is too small), every
 * rank's call fails with that rank's message, and none hangs.
 */
#ifndef CHOREO_EXECUTOR_CHOREO_H
#define CHOREO_EXECUTOR_CHOREO_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct choreo_plan_s *choreo_plan;

enum {
  CHOREO_OK = 0,
  CHOREO_ERR_ARG = 1,  /* a null or invalid argument */
  CHOREO_ERR_PLAN = 2, /* the schedule, communicator or buffers are refused */
  CHOREO_ERR_RUN = 3   /* MPI failed while executing */
};

typedef struct {
  const void *sendbuf; /* this rank's contribution (or vector) */
  size_t sendbytes;
  void *recvbuf; /* the result, laid out as the matching MPI call does */
  size_t recvbytes;
  const size_t *recv_displs; /* byte displacements per member, or NULL */
  int n_recv_displs;
  MPI_Datatype reduce_type; /* reductions only */
  MPI_Op reduce_op;
  int busy_wait; /* 0 (default): MPI_Testall + sched_yield; 1: MPI_Waitall */
} choreo_buffers;

/* Sets every field to its default (no buffers, contiguous, yield). */
void choreo_buffers_init(choreo_buffers *b);

/* Collective over comm. Reads the schedule file (JSON or CBOR); one rank
 * proves it, the others keep only their own ops. */
int choreo_plan_create(const char *schedule_file, MPI_Comm comm,
                       const choreo_buffers *b, choreo_plan *plan);

/* Options beyond the buffers, for choreo_plan_create_with. The struct may
 * grow: choreo_plan_options_init sets struct_size to the size this header
 * declares, and the library reads only the fields a caller's struct_size
 * covers (the others keep their defaults). */
typedef struct {
  size_t struct_size; /* sizeof(choreo_plan_options), by choreo_plan_options_init */
  /* Receiver-driven flow control (docs/executor.md, "Flow control"): a
   * message of at least this many bytes is sent only once its receiver has
   * entered the step (a zero-byte clear-to-send) and completes when the
   * receiver acknowledged it; 0 (default): off, every message eager. The
   * C API's form of choreo-run --flow-control and CHOREO_FLOW_CONTROL.
   * Every rank must give the same (create fails on every rank otherwise). */
  unsigned long long flow_control_bytes;
} choreo_plan_options;

/* Sets every field to its default (flow control off) and struct_size. */
void choreo_plan_options_init(choreo_plan_options *o);

/* choreo_plan_create with options; o NULL: the defaults (the same as
 * choreo_plan_create). CHOREO_ERR_ARG if o->struct_size is smaller than
 * the first release's struct (two fields). */
int choreo_plan_create_with(const char *schedule_file, MPI_Comm comm,
                            const choreo_buffers *b,
                            const choreo_plan_options *o, choreo_plan *plan);

/* Runs the plan once on the buffers it was created with. */
int choreo_plan_execute(choreo_plan plan);

/* Starts a run of the plan and returns at once (its first step's messages
 * posted); every rank of the communicator starts it. The buffers belong to
 * the run until it completes. CHOREO_ERR_ARG if the plan is already running
 * (a run must complete before the next starts: test or wait for it). */
int choreo_plan_start(choreo_plan plan);

/* Advances the plan's run without blocking (its steps whose messages have
 * arrived are done, the next ones posted) and sets *done to 1 when the run
 * is complete, else 0. A plan not running is done. A run that failed
 * (CHOREO_ERR_RUN) is over: *done is 1. */
int choreo_plan_test(choreo_plan plan, int *done);

/* Waits until the plan's run is complete (as choreo_plan_execute waits:
 * yielding, or busy with busy_wait); a plan not running returns at once. */
int choreo_plan_wait(choreo_plan plan);

/* Frees the plan and sets *plan to NULL; a NULL plan is ignored. A plan
 * still running is waited for first (its peers need its messages). */
void choreo_plan_free(choreo_plan *plan);

/* The message of this thread's last failed call ("" if none). */
const char *choreo_last_error(void);

/* Fortran (bind(C)): the communicator as MPI_Fint, gather-type buffers. */
int choreo_plan_create_f(const char *schedule_file, MPI_Fint comm,
                         const void *sendbuf, long long sendbytes,
                         void *recvbuf, long long recvbytes, choreo_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* CHOREO_EXECUTOR_CHOREO_H */
