//===- executor/Agree.h - What every rank of a job agrees on ----*- C++ -*-===//
///
/// \file
/// The collective agreement primitives of the runtime, so that one rank's
/// problem is every rank's error and nobody proceeds into a step another
/// rank refused (nobody hangs): the lowest failing rank's message reaches
/// every rank (agreeOnErrors, agreeAcross), a value every rank must share is
/// compared with rank 0's (agreeOnFingerprint), and a key every rank must
/// share is compared by digest, listing each rank's own words when the
/// ranks differ (agreeOnKey), and a yes or no of every rank is known to
/// every rank (gatherFlags). The pipeline (executor/Pipeline.h), plan
/// creation, choreo-run and the drop-in library agree through these.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_EXECUTOR_AGREE_H
#define CHOREO_EXECUTOR_AGREE_H

#include "ir/Digest.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <mpi.h>
#include <optional>
#include <string>
#include <vector>

namespace choreo {

/// Whether this process is in group A of an intercommunicator: A is the
/// group whose rank 0 has the lower MPI_COMM_WORLD rank. Empty when the
/// groups are not in MPI_COMM_WORLD (A cannot be told from B). Local.
std::optional<bool> inLowGroup(MPI_Comm Inter);

/// Collective over an intracommunicator: if any rank passes a non-empty
/// message, every rank gets an error with the lowest such rank's message;
/// else success.
llvm::Error agreeOnErrors(MPI_Comm Comm, const std::string &LocalError);

/// agreeOnErrors over Comm, an intra- or an intercommunicator (whose groups
/// are merged for it, A first).
llvm::Error agreeAcross(MPI_Comm Comm, const std::string &LocalError);

/// Collective: every rank of Comm (an intra- or an intercommunicator, whose
/// groups are merged for it) passes its fingerprint of something all must
/// share; a rank whose value differs from rank 0's makes every rank return
/// the error "rank R was given WHAT than rank 0; every rank must run the
/// same".
llvm::Error agreeOnFingerprint(MPI_Comm Comm, Digest128 Fp,
                               llvm::StringRef What);

/// Collective: every rank's Flag, in the rank order of Comm (an intra- or
/// an intercommunicator, whose groups are merged for it, A first); the
/// same vector on every rank (one MPI_Allgather of a byte per rank).
std::vector<bool> gatherFlags(MPI_Comm Comm, bool Flag);

/// Collective over an intracommunicator: every rank's Key must be the same
/// (one 16-byte MPI_Allreduce). Returns "" when it is; else, on every rank,
/// "the ranks disagree on WHAT: rank 0: TEXT; rank 1: TEXT..." with each
/// rank's Text (cut to 199 characters, runs of equal texts shown once, at
/// most six).
std::string agreeOnKey(MPI_Comm Comm, Digest128 Key, const std::string &Text,
                       llvm::StringRef What);

} // namespace choreo

#endif
