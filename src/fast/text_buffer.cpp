#include "fast/text_buffer.hpp"

#include <algorithm>
#include <cstring>

namespace agent_session::fast {

void TextBuffer::grow(std::size_t bytes) {
  // Doubling: a text grown a piece at a time is copied O(1) times a byte.
  const std::size_t capacity = std::max({size_ + bytes, 2 * capacity_, std::size_t{256}});
  auto data = std::make_unique_for_overwrite<char[]>(capacity);
  if (size_ != 0) std::memcpy(data.get(), data_.get(), size_);
  data_ = std::move(data);
  capacity_ = capacity;
}

}  // namespace agent_session::fast
