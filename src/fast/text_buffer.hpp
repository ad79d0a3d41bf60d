// A growable byte buffer printed into in place, for the fast path's
// printers: room() makes bytes writable at the end without initialising
// them (std::string's resize zeroes them) and advance_to() keeps what was
// written. The fast loader prints tool inputs into one, reused from input
// to input.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace agent_session::fast {

class TextBuffer {
 public:
  // Pointer to `bytes` writable bytes at the end of the text.
  char* room(std::size_t bytes) {
    if (capacity_ - size_ < bytes || data_ == nullptr) grow(bytes);
    return data_.get() + size_;
  }
  // Keeps the bytes written from the end up to `end` (within the room).
  void advance_to(const char* end) noexcept { size_ = static_cast<std::size_t>(end - data_.get()); }
  void append(std::string_view text) {
    std::memcpy(room(text.size()), text.data(), text.size());
    size_ += text.size();
  }
  void push_back(char c) {
    *room(1) = c;
    ++size_;
  }
  std::string_view view() const noexcept { return {data_.get(), size_}; }
  void clear() noexcept { size_ = 0; }

 private:
  void grow(std::size_t bytes);
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace agent_session::fast
