//===- executor/CApi.cpp - C interface to choreo's executor ---------------===//
///
/// \file
/// choreo.h over choreo::Plan.
///
//===----------------------------------------------------------------------===//

#include "executor/Plan.h"
#include "executor/choreo.h"

#include <cstddef>
#include <sched.h>
#include <string>

using namespace choreo;

struct choreo_plan_s {
  std::unique_ptr<Plan> P;
  bool Busy = false;
};

namespace {
thread_local std::string LastError;

int fail(int Code, std::string Msg) {
  LastError = std::move(Msg);
  return Code;
}
} // namespace

extern "C" void choreo_buffers_init(choreo_buffers *B) {
  if (!B)
    return;
  B->sendbuf = nullptr;
  B->sendbytes = 0;
  B->recvbuf = nullptr;
  B->recvbytes = 0;
  B->recv_displs = nullptr;
  B->n_recv_displs = 0;
  B->reduce_type = MPI_DATATYPE_NULL;
  B->reduce_op = MPI_OP_NULL;
  B->busy_wait = 0;
}

extern "C" void choreo_plan_options_init(choreo_plan_options *O) {
  if (!O)
    return;
  O->struct_size = sizeof(choreo_plan_options);
  O->flow_control_bytes = 0;
}

extern "C" int choreo_plan_create(const char *File, MPI_Comm Comm,
                                  const choreo_buffers *B, choreo_plan *Out) {
  return choreo_plan_create_with(File, Comm, B, nullptr, Out);
}

extern "C" int choreo_plan_create_with(const char *File, MPI_Comm Comm,
                                       const choreo_buffers *B,
                                       const choreo_plan_options *Opts,
                                       choreo_plan *Out) {
  const char *Name =
      Opts ? "choreo_plan_create_with" : "choreo_plan_create";
  if (!File || !B || !Out)
    return fail(CHOREO_ERR_ARG, std::string(Name) + ": null argument");
  *Out = nullptr;
  // The fields the caller's struct has (the first release's: struct_size
  // and flow_control_bytes); later fields would be read only when
  // struct_size covers them.
  constexpr size_t FirstRelease =
      offsetof(choreo_plan_options, flow_control_bytes) +
      sizeof(unsigned long long);
  if (Opts && Opts->struct_size < FirstRelease)
    return fail(CHOREO_ERR_ARG,
                "choreo_plan_create_with: options.struct_size is " +
                    std::to_string(Opts->struct_size) + ", expected at least " +
                    std::to_string(FirstRelease) +
                    " (call choreo_plan_options_init first)");
  UserBuffers U;
  U.Send = B->sendbuf;
  U.SendBytes = B->sendbytes;
  U.Recv = B->recvbuf;
  U.RecvBytes = B->recvbytes;
  if (B->recv_displs)
    U.RecvDispls.assign(B->recv_displs, B->recv_displs + B->n_recv_displs);
  U.ReduceType = B->reduce_type;
  U.ReduceOp = B->reduce_op;
  PlanOptions O;
  O.Wait = B->busy_wait ? WaitMode::Busy : WaitMode::Yield;
  if (Opts)
    O.FlowControlBytes = Opts->flow_control_bytes;
  auto P = Plan::createFromFile(File, Comm, U, O);
  if (!P)
    return fail(CHOREO_ERR_PLAN, llvm::toString(P.takeError()));
  *Out = new choreo_plan_s{std::move(*P), B->busy_wait != 0};
  LastError.clear();
  return CHOREO_OK;
}

extern "C" int choreo_plan_execute(choreo_plan Plan) {
  if (!Plan)
    return fail(CHOREO_ERR_ARG, "choreo_plan_execute: null plan");
  if (auto E = Plan->P->execute())
    return fail(CHOREO_ERR_RUN, llvm::toString(std::move(E)));
  return CHOREO_OK;
}

extern "C" int choreo_plan_start(choreo_plan Plan) {
  if (!Plan)
    return fail(CHOREO_ERR_ARG, "choreo_plan_start: null plan");
  if (Plan->P->running())
    return fail(CHOREO_ERR_ARG, "choreo_plan_start: the plan is already "
                                "running (test or wait for its run first)");
  if (auto E = Plan->P->start())
    return fail(CHOREO_ERR_RUN, llvm::toString(std::move(E)));
  return CHOREO_OK;
}

extern "C" int choreo_plan_test(choreo_plan Plan, int *Done) {
  if (!Plan || !Done)
    return fail(CHOREO_ERR_ARG, "choreo_plan_test: null argument");
  *Done = 1;
  auto Complete = Plan->P->progress();
  if (!Complete)
    return fail(CHOREO_ERR_RUN, llvm::toString(Complete.takeError()));
  *Done = *Complete ? 1 : 0;
  return CHOREO_OK;
}

extern "C" int choreo_plan_wait(choreo_plan Plan) {
  if (!Plan)
    return fail(CHOREO_ERR_ARG, "choreo_plan_wait: null plan");
  for (int Done = 0;;) {
    if (int Rc = choreo_plan_test(Plan, &Done); Rc != CHOREO_OK || Done)
      return Rc;
    if (!Plan->Busy)
      sched_yield();
  }
}

extern "C" void choreo_plan_free(choreo_plan *Plan) {
  if (!Plan || !*Plan)
    return;
  if ((*Plan)->P->running())
    choreo_plan_wait(*Plan);
  delete *Plan;
  *Plan = nullptr;
}

extern "C" const char *choreo_last_error(void) { return LastError.c_str(); }

extern "C" int choreo_plan_create_f(const char *File, MPI_Fint Comm,
                                    const void *SendBuf, long long SendBytes,
                                    void *RecvBuf, long long RecvBytes,
                                    choreo_plan *Out) {
  if (SendBytes < 0 || RecvBytes < 0)
    return fail(CHOREO_ERR_ARG, "choreo_plan_create_f: negative size");
  choreo_buffers B;
  choreo_buffers_init(&B);
  B.sendbuf = SendBuf;
  B.sendbytes = static_cast<size_t>(SendBytes);
  B.recvbuf = RecvBuf;
  B.recvbytes = static_cast<size_t>(RecvBytes);
  return choreo_plan_create(File, MPI_Comm_f2c(Comm), &B, Out);
}
