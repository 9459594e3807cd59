//===- ir/ScheduleReader.cpp - Reading format v1 --------------------------===//
///
/// \file
/// The reader's entry points: the format of a document (sniffed, from a
/// path, from an option), the limits checked before parsing, and
/// parseSchedule, which streams the document (ScheduleSax.cpp), decodes
/// its header (ScheduleHeaderReader.cpp), names the buffers of the blocks and
/// verifies the structure.
///
//===----------------------------------------------------------------------===//

#include "ir/BoundedFile.h"
#include "ir/ScheduleIO.h"
#include "ir/ScheduleReading.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace choreo;
using llvm::formatv;

namespace {

/// Replaces the reader's interned buffer indices by the schedule's BufferIds.
bool resolveBuffers(Schedule &S, const StreamedSchedule &Sax,
                    std::vector<Diagnostic> &Errors) {
  std::vector<Buffer> Bufs = S.buffers();
  std::vector<BufferId> Map(Sax.BufNames.size());
  for (size_t I = 0; I < Sax.BufNames.size(); ++I) {
    std::optional<BufferId> Id = S.bufferId(Sax.BufNames[I]);
    if (!Id) {
      std::vector<std::string> Names;
      for (const Buffer &B : Bufs)
        Names.push_back(B.Name);
      Errors.emplace_back(
          "invalid", formatv("{0}: unknown buffer \"{1}\" ({2} has: {3})",
                             Sax.BufFirstUse[I], Sax.BufNames[I],
                             collectiveName(S.Kind), llvm::join(Names, ", ")));
      return false;
    }
    Map[I] = *Id;
  }
  S.Steps.remapBuffers(Map);
  return true;
}

} // namespace

FileFormat choreo::sniffFormat(llvm::StringRef Data) {
  if (Data.empty())
    return FileFormat::Json;
  unsigned char C = Data[0];
  // Major type 5 (map) or the self-describe tag 55799 (0xd9 0xd9 0xf7).
  if ((C >= 0xa0 && C <= 0xbf) || C == 0xd9)
    return FileFormat::Cbor;
  return FileFormat::Json;
}

FileFormat choreo::formatForPath(llvm::StringRef Path) {
  return Path.ends_with_insensitive(".cbor") ? FileFormat::Cbor
                                             : FileFormat::Json;
}

llvm::Expected<FileFormat> choreo::parseFileFormat(llvm::StringRef Name) {
  if (Name == "json")
    return FileFormat::Json;
  if (Name == "cbor")
    return FileFormat::Cbor;
  return makeDiagError("usage", formatv("--format: expected json or cbor, "
                                        "got '{0}'",
                                        Name));
}

llvm::Error choreo::checkScheduleStart(llvm::StringRef Start) {
  if (sniffFormat(Start) == FileFormat::Json)
    if (size_t Nul = Start.find('\0'); Nul != llvm::StringRef::npos)
      return makeDiagError("unreadable",
                           formatv("cannot read the schedule: byte {0} is a "
                                   "NUL character (a JSON schedule is text; "
                                   "a CBOR one starts with a map)",
                                   Nul));
  return llvm::Error::success();
}

llvm::Expected<Schedule> choreo::parseSchedule(llvm::StringRef Data,
                                               const ReadOptions &Opts) {
  if (Data.trim().empty())
    return makeDiagError("unreadable",
                         "cannot read the schedule: the input is empty");
  FileFormat F = sniffFormat(Data);
  // nlohmann's SAX parse of CBOR has no tag handler: the self-describe tag
  // 55799 (d9 d9 f7), which only says "CBOR follows", is dropped here; any
  // other tag stays an error.
  if (F == FileFormat::Cbor && Data.starts_with("\xd9\xd9\xf7"))
    Data = Data.drop_front(3);
  if (F == FileFormat::Json)
    if (llvm::Error E = checkScheduleStart(Data))
      return E;
  StreamedSchedule Sax = streamSchedule(Data, F, Opts.OnlyRank);
  if (!Sax.Errors.empty())
    return llvm::make_error<DiagnosticError>(std::move(Sax.Errors));
  if (!Sax.SawSteps)
    Sax.Errors.emplace_back("invalid", "/steps: missing");

  Schedule S;
  std::vector<Diagnostic> Errors;
  if (!decodeHeader(Sax.Header, S, Errors) || !Sax.Errors.empty()) {
    // A document that is not a schedule at all reports its header first.
    Errors.insert(Errors.end(), Sax.Errors.begin(), Sax.Errors.end());
    return llvm::make_error<DiagnosticError>(std::move(Errors));
  }
  // A part keeps only its rank's ops; an op of no rank would be in no
  // part, so each reader reports the file's first op out of range itself.
  if (Opts.OnlyRank)
    if (std::optional<Diagnostic> D = firstOpOutOfRange(Sax, S.NumRanks))
      return llvm::make_error<DiagnosticError>(std::vector<Diagnostic>{*D});
  S.Steps = std::move(Sax.Steps);
  S.FileOpIndex = std::move(Sax.FileOpIndex);
  S.StepsDigest = Sax.Digest.digest();
  if (!resolveBuffers(S, Sax, Errors))
    return llvm::make_error<DiagnosticError>(std::move(Errors));
  std::vector<Diagnostic> Invalid = S.verify();
  if (!Invalid.empty())
    return llvm::make_error<DiagnosticError>(std::move(Invalid));
  return S;
}

llvm::Expected<Schedule> choreo::readScheduleFile(llvm::StringRef Path,
                                                  const ReadOptions &Opts) {
  auto Buf = readBoundedFileOrStdin(Path, MaxScheduleFileBytes,
                                    MaxScheduleStdinBytes, checkScheduleStart);
  if (!Buf)
    return Buf.takeError();
  return parseSchedule((*Buf)->getBuffer(), Opts);
}
