#include "entry/line_reader.hpp"

#include "agent_session/session.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace agent_session::entry {
namespace {

constexpr std::size_t kPiece = std::size_t{1} << 20;

}  // namespace

LineReader::LineReader(ReadSome read_some, std::size_t read_ahead, std::optional<std::uint64_t> size_hint)
    : read_some_(std::move(read_some)),
      read_ahead_(read_ahead),
      // Room for the whole input and the read that finds its end.
      first_capacity_(size_hint && *size_hint < kPiece ? static_cast<std::size_t>(*size_hint) + 1 : kPiece) {}

std::optional<LineReader::Line> LineReader::next() {
  for (;;) {
    const char* start = buffer_.data() + begin_;
    if (const void* newline = std::memchr(start + scanned_, '\n', end_ - begin_ - scanned_)) {
      const auto length = static_cast<std::size_t>(static_cast<const char*>(newline) - start);
      if (length > kMaxLineBytes) throw LineTooLong(number_ + 1);
      begin_ += length + 1;
      scanned_ = 0;
      return Line{{start, length}, ++number_, true, buffer_.size() - (begin_ - 1), dropped_ + begin_ - length - 1};
    }
    scanned_ = end_ - begin_;
    if (scanned_ > kMaxLineBytes) throw LineTooLong(number_ + 1);
    if (at_end_) {
      if (begin_ == end_) return std::nullopt;
      const std::size_t length = end_ - begin_;
      const std::uint64_t offset = dropped_ + begin_;
      begin_ = end_;
      scanned_ = 0;
      return Line{{start, length}, ++number_, false, buffer_.size() - end_, offset};
    }
    // Keep the unfinished line, at the front; grow for a line longer than
    // the buffer, up to the longest line there is room for. Moved only
    // when a line ended before it: a line arriving in many small pieces
    // is moved once, not once a piece (which is quadratic in its length).
    if (begin_ > 0) {
      std::memmove(buffer_.data(), start, scanned_);
      dropped_ += begin_;
      begin_ = 0;
      end_ = scanned_;
    }
    if (end_ == capacity_) {
      capacity_ = capacity_ == 0 ? first_capacity_ : std::min(2 * capacity_, kMaxLineBytes + 1);
      buffer_.resize(capacity_ + read_ahead_, ' ');
    }
    const std::size_t got = read_some_(buffer_.data() + end_, capacity_ - end_);
    if (got == 0) at_end_ = true;
    end_ += got;
  }
}

namespace {

// The first line for which `found(line)` holds, else the last one.
template <class Found>
LinePosition find_line(std::string_view bytes, Found&& found) {
  LineReader reader(read_from(bytes), 0, bytes.size());
  LinePosition at;
  std::size_t non_empty = 0;
  while (const auto line = reader.next()) {
    at.number = line->number;
    at.offset = line->offset;
    at.terminated = line->terminated;
    at.non_empty_before = non_empty;
    if (found(*line)) break;
    if (!line->text.empty()) ++non_empty;
  }
  if (at.number == 0) return at;
  const std::size_t end = bytes.find('\n', static_cast<std::size_t>(at.offset));
  at.text =
      bytes.substr(static_cast<std::size_t>(at.offset),
                   end == std::string_view::npos ? std::string_view::npos : end - static_cast<std::size_t>(at.offset));
  at.last = end == std::string_view::npos || bytes.find_first_not_of('\n', end) == std::string_view::npos;
  return at;
}

}  // namespace

LinePosition line_numbered(std::string_view bytes, std::size_t number) {
  return find_line(bytes, [&](const LineReader::Line& line) { return line.number == number; });
}

LinePosition line_at_offset(std::string_view bytes, std::uint64_t offset) {
  return find_line(bytes, [&](const LineReader::Line& line) { return line.offset + line.text.size() >= offset; });
}

LinePosition last_line(std::string_view bytes) {
  return find_line(bytes, [](const LineReader::Line&) { return false; });
}

LineReader::ReadSome read_from(std::string_view bytes) {
  return [bytes](char* buffer, std::size_t size) mutable {
    const std::size_t got = std::min(size, bytes.size());
    bytes.copy(buffer, got);
    bytes.remove_prefix(got);
    return got;
  };
}

}  // namespace agent_session::entry
