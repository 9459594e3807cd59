//===- trace/preload/Recorder.cpp - UCX wrappers and the record --------===//
///
/// \file
/// Interposes the UCX calls MPICH 4.0.2's ch4:ucx netmod makes for
/// point-to-point messages (ucp_tag_send_nbx, ucp_tag_send_sync_nbx,
/// ucp_tag_recv_nbx, ucp_tag_probe_nb + ucp_tag_msg_recv_nbx), the endpoint
/// calls that say which process an endpoint reaches (ucp_worker_get_address,
/// ucp_ep_create), the generic datatypes MPICH makes of non-contiguous MPI
/// datatypes (ucp_dt_create_generic, whose pack operations give the bytes
/// such a message carries), and the calls a traced window must not see
/// (active messages, RMA); each forwards to UCX (dlsym RTLD_NEXT). MPICH's own
/// collectives send through these too, so the record holds every message
/// of the call, whoever wrote the algorithm.
///
//===----------------------------------------------------------------------===//

#include "trace/preload/Recorder.h"
#include "trace/Encoding.h"

#include <ucp/api/ucp.h>

#include <dlfcn.h>

#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

using namespace choreo::trace;

namespace {

struct State {
  bool Open = false;
  uint64_t Seq = 0;
  uint32_t NextRecv = 0;
  std::string Lines;
  std::vector<char> Data;
  std::string Refusals;
  // Endpoints in creation order, and the address each reaches.
  std::unordered_map<const void *, uint32_t> EpIndex;
  std::vector<std::string> EpAddress;
  std::string OwnAddress;
  size_t OwnAddressLen = 0;
  // Probed messages (MPI_Mprobe): handle -> sender tag.
  std::unordered_map<const void *, uint64_t> Probed;
  // Generic datatypes MPICH made (non-contiguous MPI datatypes): their
  // pack operations, which give the bytes UCX sends.
  struct Generic {
    ucp_generic_dt_ops_t Ops;
    void *Context;
  };
  std::unordered_map<ucp_datatype_t, Generic> Generics;
};

State &state() {
  static State *S = new State; // never destroyed: callbacks may run late
  return *S;
}

std::string hex(const void *Data, size_t Len) {
  static const char Digits[] = "0123456789abcdef";
  std::string Out;
  Out.reserve(2 * Len);
  const unsigned char *P = static_cast<const unsigned char *>(Data);
  for (size_t I = 0; I < Len; ++I) {
    Out += Digits[P[I] >> 4];
    Out += Digits[P[I] & 15];
  }
  return Out;
}

void line(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
void line(const char *Fmt, ...) {
  char Buf[512];
  va_list Ap;
  va_start(Ap, Fmt);
  vsnprintf(Buf, sizeof Buf, Fmt, Ap);
  va_end(Ap);
  state().Lines += Buf;
  state().Lines += '\n';
}

template <typename F> F real(F &Slot, const char *Name) {
  if (!Slot)
    Slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, Name));
  if (!Slot) {
    fprintf(stderr, "choreo trace: cannot find %s in UCX\n", Name);
    abort();
  }
  return Slot;
}

uint32_t epIndex(ucp_ep_h Ep) {
  auto It = state().EpIndex.find(Ep);
  return It == state().EpIndex.end() ? UINT32_MAX : It->second;
}

/// The datatype of a send or receive: contiguous bytes (null), a generic
/// one we can pack (its entry), or one we cannot (Unknown set).
const State::Generic *datatypeOf(const ucp_request_param_t *Param,
                                 bool &Unknown) {
  Unknown = false;
  if (!Param || !(Param->op_attr_mask & UCP_OP_ATTR_FIELD_DATATYPE) ||
      Param->datatype == ucp_dt_make_contig(1))
    return nullptr;
  auto It = state().Generics.find(Param->datatype);
  if (It == state().Generics.end()) {
    Unknown = true;
    return nullptr;
  }
  return &It->second;
}

/// Appends the bytes UCX sends for Count elements of G at Buf (at most Max
/// of them) to Out; returns how many.
uint64_t pack(const State::Generic &G, const void *Buf, size_t Count,
              uint64_t Max, std::vector<char> &Out) {
  void *St = G.Ops.start_pack(G.Context, Buf, Count);
  uint64_t Len = std::min<uint64_t>(G.Ops.packed_size(St), Max);
  size_t Off = Out.size();
  Out.resize(Off + Len);
  Len = G.Ops.pack(St, 0, Out.data() + Off, Len);
  Out.resize(Off + Len);
  // Not G.Ops.finish: MPICH 4.0.2's finish_pack (ucx_datatype.c) also drops
  // the datatype reference the send took for UCX's own pass; its state is
  // one MPL_malloc'ed block.
  free(St);
  return Len;
}

void recordSend(ucp_ep_h Ep, const void *Buf, size_t Count, ucp_tag_t Tag,
                const ucp_request_param_t *Param, bool Sync) {
  State &S = state();
  if (!S.Open)
    return;
  uint64_t Seq = S.Seq++;
  bool Unknown;
  const State::Generic *G = datatypeOf(Param, Unknown);
  if (Unknown) {
    line("S %" PRIu64 " %u %" PRIx64 " %zu - packed", Seq, epIndex(Ep), Tag,
         Count);
    return;
  }
  uint64_t Off = S.Data.size(), Len = Count;
  if (G)
    Len = pack(*G, Buf, Count, UINT64_MAX, S.Data);
  else
    S.Data.insert(S.Data.end(), static_cast<const char *>(Buf),
                  static_cast<const char *>(Buf) + Count);
  line("S %" PRIu64 " %u %" PRIx64 " %" PRIu64 " %" PRIu64 "%s", Seq,
       epIndex(Ep), Tag, Len, Off, Sync ? " sync" : "");
}

/// What a wrapped receive's callback needs.
struct RecvContext {
  ucp_tag_recv_nbx_callback_t Callback;
  void *UserData;
  uint32_t Id;
  void *Buffer;
  /// A generic datatype: the received elements, packed again, are the
  /// bytes that came.
  const State::Generic *Type;
  size_t Count;
};

void recordCompletion(const RecvContext &C, ucs_status_t Status,
                      const ucp_tag_recv_info_t *Info) {
  State &S = state();
  uint64_t Seq = S.Seq++;
  if (Status != UCS_OK || !Info) {
    line("C %" PRIu64 " %u - 0 0 %s", Seq, C.Id, ucs_status_string(Status));
    return;
  }
  uint64_t Digest;
  if (C.Type) {
    std::vector<char> Bytes;
    pack(*C.Type, C.Buffer, C.Count, Info->length, Bytes);
    Digest = hashBytes(Bytes.data(), Bytes.size());
  } else {
    Digest = hashBytes(C.Buffer, Info->length);
  }
  line("C %" PRIu64 " %u %" PRIx64 " %zu %" PRIx64 " ok", Seq, C.Id,
       Info->sender_tag, Info->length, Digest);
}

void recvCallback(void *Request, ucs_status_t Status,
                  const ucp_tag_recv_info_t *Info, void *User) {
  RecvContext *C = static_cast<RecvContext *>(User);
  recordCompletion(*C, Status, Info);
  ucp_tag_recv_nbx_callback_t Cb = C->Callback;
  void *UserData = C->UserData;
  delete C;
  if (Cb)
    Cb(Request, Status, Info, UserData);
}

/// Posts a receive through Post with our callback in front of the caller's.
template <typename PostFn>
ucs_status_ptr_t wrapRecv(void *Buffer, size_t Count, uint64_t Tag,
                          uint64_t Mask, const ucp_request_param_t *Param,
                          PostFn Post) {
  State &S = state();
  if (!S.Open || !Param)
    return Post(Param);
  uint32_t Id = S.NextRecv++;
  bool Unknown;
  const State::Generic *G = datatypeOf(Param, Unknown);
  line("P %" PRIu64 " %u %" PRIx64 " %" PRIx64 " %zu%s", S.Seq++, Id, Tag, Mask,
       Count, Unknown ? " packed" : "");
  ucp_request_param_t Mine = *Param;
  RecvContext *C = new RecvContext{nullptr, nullptr, Id, Buffer, G, Count};
  if (Param->op_attr_mask & UCP_OP_ATTR_FIELD_CALLBACK)
    C->Callback = Param->cb.recv;
  if (Param->op_attr_mask & UCP_OP_ATTR_FIELD_USER_DATA)
    C->UserData = Param->user_data;
  Mine.op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  Mine.cb.recv = recvCallback;
  Mine.user_data = C;
  ucs_status_ptr_t R = Post(&Mine);
  if (!UCS_PTR_IS_PTR(R)) {
    // Completed at once (or failed): UCX did not call back.
    const ucp_tag_recv_info_t *Info =
        (Param->op_attr_mask & UCP_OP_ATTR_FIELD_RECV_INFO)
            ? Param->recv_info.tag_info
            : nullptr;
    recordCompletion(*C, UCS_PTR_STATUS(R), Info);
    delete C;
  }
  return R;
}

void writeFile(const std::string &Path, const char *Data, size_t Len) {
  FILE *F = fopen(Path.c_str(), "wb");
  bool Ok = F && fwrite(Data, 1, Len, F) == Len;
  if (F && fclose(F) != 0)
    Ok = false;
  if (!Ok)
    fprintf(stderr, "choreo trace: cannot write %s: %s\n", Path.c_str(),
            strerror(errno));
}

} // namespace

namespace choreo::trace {

void openWindow() {
  State &S = state();
  S.Open = true;
  S.Seq = 0;
  S.NextRecv = 0;
  S.Lines.clear();
  S.Data.clear();
}

bool windowOpen() { return state().Open; }

void recordResult(const void *Data, uint64_t Len) {
  State &S = state();
  uint64_t Off = S.Data.size();
  S.Data.insert(S.Data.end(), static_cast<const char *>(Data),
                static_cast<const char *>(Data) + Len);
  line("R %" PRIu64 " %" PRIu64, Len, Off);
}

void recordRefusal(const std::string &Why) {
  state().Refusals += "refuse " + Why + "\n";
}

void stopRecording() { state().Open = false; }

void writeRecord(const std::string &Header, int WorldRank) {
  State &S = state();
  const char *Dir = getenv("CHOREO_TRACE_DIR");
  if (!Dir)
    return;
  std::string Base = std::string(Dir) + "/rank-" + std::to_string(WorldRank);
  std::string Events;
  Events += "choreo-trace 1\n";
  Events += "process " + std::to_string(WorldRank) + " " + S.OwnAddress + "\n";
  for (size_t I = 0; I < S.EpAddress.size(); ++I)
    Events += "ep " + std::to_string(I) + " " + S.EpAddress[I] + "\n";
  Events += Header;
  Events += S.Refusals;
  Events += S.Lines;
  Events += "end\n";
  writeFile(Base + ".events", Events.data(), Events.size());
  writeFile(Base + ".data", S.Data.data(), S.Data.size());
  S.Data.clear();
  S.Data.shrink_to_fit();
  S.Lines.clear();
  S.Refusals.clear();
}

} // namespace choreo::trace

//===-- The interposed UCX entry points -----------------------------------===//

extern "C" {

ucs_status_t ucp_worker_get_address(ucp_worker_h Worker,
                                    ucp_address_t **Address, size_t *Len) {
  static decltype(&ucp_worker_get_address) Real;
  ucs_status_t St = real(Real, "ucp_worker_get_address")(Worker, Address, Len);
  State &S = state();
  if (St == UCS_OK && S.OwnAddress.empty()) {
    S.OwnAddress = hex(*Address, *Len);
    S.OwnAddressLen = *Len;
  }
  return St;
}

ucs_status_t ucp_ep_create(ucp_worker_h Worker, const ucp_ep_params_t *Params,
                           ucp_ep_h *Ep) {
  static decltype(&ucp_ep_create) Real;
  ucs_status_t St = real(Real, "ucp_ep_create")(Worker, Params, Ep);
  State &S = state();
  if (St == UCS_OK && !S.EpIndex.count(*Ep)) {
    std::string Addr = "-";
    // MPICH's address table pads every entry to the longest address, so
    // the first OwnAddressLen bytes of an entry are readable.
    if ((Params->field_mask & UCP_EP_PARAM_FIELD_REMOTE_ADDRESS) &&
        S.OwnAddressLen)
      Addr = hex(Params->address, S.OwnAddressLen);
    S.EpIndex[*Ep] = S.EpAddress.size();
    S.EpAddress.push_back(Addr);
  }
  return St;
}

ucs_status_t ucp_dt_create_generic(const ucp_generic_dt_ops_t *Ops,
                                   void *Context, ucp_datatype_t *Type) {
  static decltype(&ucp_dt_create_generic) Real;
  ucs_status_t St = real(Real, "ucp_dt_create_generic")(Ops, Context, Type);
  if (St == UCS_OK)
    state().Generics[*Type] = {*Ops, Context};
  return St;
}

void ucp_dt_destroy(ucp_datatype_t Type) {
  static decltype(&ucp_dt_destroy) Real;
  state().Generics.erase(Type);
  real(Real, "ucp_dt_destroy")(Type);
}

ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h Ep, const void *Buf, size_t Count,
                                  ucp_tag_t Tag,
                                  const ucp_request_param_t *Param) {
  static decltype(&ucp_tag_send_nbx) Real;
  recordSend(Ep, Buf, Count, Tag, Param, false);
  return real(Real, "ucp_tag_send_nbx")(Ep, Buf, Count, Tag, Param);
}

ucs_status_ptr_t ucp_tag_send_sync_nbx(ucp_ep_h Ep, const void *Buf,
                                       size_t Count, ucp_tag_t Tag,
                                       const ucp_request_param_t *Param) {
  static decltype(&ucp_tag_send_sync_nbx) Real;
  recordSend(Ep, Buf, Count, Tag, Param, true);
  return real(Real, "ucp_tag_send_sync_nbx")(Ep, Buf, Count, Tag, Param);
}

ucs_status_ptr_t ucp_tag_recv_nbx(ucp_worker_h Worker, void *Buf, size_t Count,
                                  ucp_tag_t Tag, ucp_tag_t Mask,
                                  const ucp_request_param_t *Param) {
  static decltype(&ucp_tag_recv_nbx) Real;
  auto Fn = real(Real, "ucp_tag_recv_nbx");
  return wrapRecv(Buf, Count, Tag, Mask, Param,
                  [&](const ucp_request_param_t *P) {
                    return Fn(Worker, Buf, Count, Tag, Mask, P);
                  });
}

ucp_tag_message_h ucp_tag_probe_nb(ucp_worker_h Worker, ucp_tag_t Tag,
                                   ucp_tag_t Mask, int Remove,
                                   ucp_tag_recv_info_t *Info) {
  static decltype(&ucp_tag_probe_nb) Real;
  ucp_tag_message_h M =
      real(Real, "ucp_tag_probe_nb")(Worker, Tag, Mask, Remove, Info);
  if (M && Remove && Info)
    state().Probed[M] = Info->sender_tag;
  return M;
}

ucs_status_ptr_t ucp_tag_msg_recv_nbx(ucp_worker_h Worker, void *Buf,
                                      size_t Count, ucp_tag_message_h Msg,
                                      const ucp_request_param_t *Param) {
  static decltype(&ucp_tag_msg_recv_nbx) Real;
  auto Fn = real(Real, "ucp_tag_msg_recv_nbx");
  uint64_t Tag = 0;
  auto It = state().Probed.find(Msg);
  if (It != state().Probed.end()) {
    Tag = It->second;
    state().Probed.erase(It);
  }
  // A probed message: its tag is known, the mask matches it alone.
  return wrapRecv(Buf, Count, Tag, ~uint64_t(0), Param,
                  [&](const ucp_request_param_t *P) {
                    return Fn(Worker, Buf, Count, Msg, P);
                  });
}

ucs_status_ptr_t ucp_am_send_nb(ucp_ep_h Ep, uint16_t Id, const void *Buf,
                                size_t Count, ucp_datatype_t Dt,
                                ucp_send_callback_t Cb, unsigned Flags) {
  static decltype(&ucp_am_send_nb) Real;
  if (state().Open)
    recordRefusal("MPICH sent an active message (ucp_am_send_nb), which the "
                  "trace does not decode");
  return real(Real, "ucp_am_send_nb")(Ep, Id, Buf, Count, Dt, Cb, Flags);
}

ucs_status_t ucp_put_nbi(ucp_ep_h Ep, const void *Buf, size_t Len,
                         uint64_t Remote, ucp_rkey_h Rkey) {
  static decltype(&ucp_put_nbi) Real;
  if (state().Open)
    recordRefusal("the call wrote remote memory (ucp_put_nbi, RMA)");
  return real(Real, "ucp_put_nbi")(Ep, Buf, Len, Remote, Rkey);
}

ucs_status_t ucp_get_nbi(ucp_ep_h Ep, void *Buf, size_t Len, uint64_t Remote,
                         ucp_rkey_h Rkey) {
  static decltype(&ucp_get_nbi) Real;
  if (state().Open)
    recordRefusal("the call read remote memory (ucp_get_nbi, RMA)");
  return real(Real, "ucp_get_nbi")(Ep, Buf, Len, Remote, Rkey);
}

} // extern "C"
