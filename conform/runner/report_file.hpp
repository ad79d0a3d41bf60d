// How a report (`--report junit=FILE`, `json=FILE`, of `conform` and of
// `fuzz`) reaches its file: only ever a regular file, created or
// truncated, never written through a symbolic link (what it names stays as
// it was), never waited on (a FIFO nobody reads would hang the run) and
// never a device or a folder (SPEC.md §6.1, corpus/conformance/reports.md).
// The report is written in place, not renamed over FILE: the file keeps its
// owner, mode and links, and a folder that lets us write FILE but not make
// files still works. A write that fails is exit 3 (reports.md), so a report
// a run left with exit 0 or 1 is whole.
//
// Example:
//   if (const auto why = write_report_file("conformance.xml", xml)) fail(*why);  // "it is a FIFO, not ..."
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agent_session::conform::runner {

// Writes `bytes` as the whole of the regular file `path` (made 0666 less
// the umask when there is none). Nothing when it did; else why not, one
// line without the path: the system's reason, or "it is a FIFO, not a
// regular file (a report is written only to one)" for a link, a FIFO, a
// device, a socket or a folder, which are left as they were.
std::optional<std::string> write_report_file(const std::string& path, std::string_view bytes);

}  // namespace agent_session::conform::runner
