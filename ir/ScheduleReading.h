//===- ir/ScheduleReading.h - The reader's two passes -----------*- C++ -*-===//
///
/// \file
/// Internal to the reader (ScheduleIO.h is its interface): the streaming
/// pass over a document (ScheduleSax.cpp), which leaves the steps decoded
/// and the header as a small JSON tree, and the decoding of that tree
/// (ScheduleHeaderReader.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_SCHEDULEREADING_H
#define CHOREO_IR_SCHEDULEREADING_H

#include "ir/Digest.h"
#include "ir/Schedule.h"
#include "ir/ScheduleIO.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace choreo {

/// What the streaming pass leaves of a document.
struct StreamedSchedule {
  /// Every top-level member but `steps`, as JSON.
  nlohmann::ordered_json Header = nlohmann::ordered_json::object();
  StepList Steps;
  bool SawSteps = false;
  /// The steps' digest of every step, op and block (Schedule::StepsDigest).
  StepHasher Digest;
  /// Buffer names met in blocks, in order of first use, and the pointer of
  /// that use; Block::Buf holds the index into BufNames until the header
  /// says which buffers exist.
  std::vector<std::string> BufNames;
  std::vector<std::string> BufFirstUse;
  /// Unreadable input, or the first invalid value met while streaming.
  std::vector<Diagnostic> Errors;
  /// With OnlyRank: the ops (of every rank, kept or not) whose larger end
  /// exceeds every earlier op's, in file order, with their JSON pointers.
  /// The first op of the file with an end out of range is one of them, so
  /// a part can report it as the whole file's reader does, whoever reads.
  struct EndRecord {
    std::string Pointer;
    uint64_t Src, Dst;
  };
  std::vector<EndRecord> EndRecords;
  /// With OnlyRank: each kept op's index in its step of the file.
  std::vector<uint32_t> FileOpIndex;
};

/// With OnlyRank: the first op of the whole file with an end that is not
/// one of Ranks ranks (S.verify's words, at the file's pointer), if any.
std::optional<Diagnostic> firstOpOutOfRange(const StreamedSchedule &Sax,
                                            uint64_t Ranks);

/// Streams Data (format F; CBOR without its self-describe tag) into steps
/// and a header tree; with OnlyRank, keeps only the ops that rank sends or
/// receives.
StreamedSchedule streamSchedule(llvm::StringRef Data, FileFormat F,
                                std::optional<uint64_t> OnlyRank);

/// Decodes the header tree into S (all but the steps); false after adding
/// the failure to Errors.
bool decodeHeader(const nlohmann::ordered_json &Header, Schedule &S,
                  std::vector<Diagnostic> &Errors);

} // namespace choreo

#endif
