// The pending-sync mark (SPEC.md §8, docs/durability.md): how a synced
// append that failed, and could not even roll back, keeps a retry from
// appending its batch a second time.
//
// An append under SyncPolicy::data writes its batch and, in the same
// write, this mark after it: a last line with no newline that is not a
// message (so loading refuses the file and appends refuse to weld onto
// it). Once the batch is synced, the mark is cut off; if the sync fails,
// the batch and the mark are cut off. Only when that rollback fails too
// does the mark stay, saying "the batch before me was never acknowledged;
// cut the file back to N bytes", and the next append (or `repair --apply`)
// does so under the lock before it writes.
//
// After a crash the mark proves nothing: the batch may have been synced,
// acknowledged, and the cut of the mark lost. So the mark names the boot
// it was written in (/proc/sys/kernel/random/boot_id) and a mark from
// another boot is cut off alone, keeping the batch, as after a writer
// killed mid-batch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session::library {

// The mark for a batch whose file held `rollback_to` bytes before it.
std::string pending_sync_mark(std::uint64_t rollback_to);

// Where to cut a file of `bytes` whose last line (no `\n` after it) may be
// a pending-sync mark: nullopt when it is not exactly one (anything else,
// a message included, is left to the torn-line rules); `rollback_to` for
// this boot's mark when the bytes from there to the mark are a batch as a
// synced append writes it (whole lines, each a message; its batch was
// never acknowledged); else the mark's own start (a mark from another
// boot, or one that names no batch of ours: the mark alone goes).
std::optional<std::uint64_t> pending_sync_cut(std::string_view bytes);

}  // namespace agent_session::library
