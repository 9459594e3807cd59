//===- ir/TopologyJson.h - A topology object of format v1 -------*- C++ -*-===//
///
/// \file
/// The one decoder of format v1's topology object (schedule-format.md):
/// `{"kind": "full"}`, `{"kind": "ring", "order": [...]}` or `{"kind":
/// "graph", "edges": [[u, v], ...]}`. The schedule reader decodes a
/// schedule's `topology` with it, `choreo synth --topology FILE` a file
/// holding one object.
///
//===----------------------------------------------------------------------===//

#ifndef CHOREO_IR_TOPOLOGYJSON_H
#define CHOREO_IR_TOPOLOGYJSON_H

#include "ir/Schedule.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

namespace choreo {

/// Decodes the topology object V found at JSON pointer Pointer ("/topology"
/// in a schedule, "" for a document that is the object). An error is a
/// DiagnosticError naming the pointer of the offending value
/// ("/topology/edges/1: a link is a [u, v] pair"). Ranks are only checked to
/// fit a Rank: whether they exist is the schedule's rule (Schedule::verify).
llvm::Expected<Topology> decodeTopology(const nlohmann::ordered_json &V,
                                        llvm::StringRef Pointer);

} // namespace choreo

#endif
