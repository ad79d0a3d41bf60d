#include "agent_session/message.hpp"

#include "internal/canonical.hpp"
#include "internal/discriminate.hpp"
#include "internal/json_line.hpp"
#include "internal/json_teardown.hpp"
#include "internal/record.hpp"
#include "internal/utf8.hpp"
#include "agent_session/text.hpp"

#include <type_traits>
#include <utility>

namespace agent_session {
namespace internal {

std::string found(std::optional<JsonKind> kind) {
  if (!kind) return "it is missing";
  switch (*kind) {
    case JsonKind::null: return "found null";
    case JsonKind::boolean: return "found a boolean";
    case JsonKind::number: return "found a number";
    case JsonKind::string: return "found a string";
    case JsonKind::array: return "found an array";
    case JsonKind::object: return "found an object";
  }
  return "found a value";
}

std::string shown_role(std::string_view role) {
  // Enough to recognise a role, short enough that a huge one cannot flood
  // the line; never cut inside a character.
  constexpr std::size_t kShownRoleBytes = 64;
  if (role.size() <= kShownRoleBytes) return "\"" + terminal_safe(role) + "\"";
  const std::size_t cut = character_boundary_before(role, kShownRoleBytes);
  return "\"" + terminal_safe(role.substr(0, cut)) + "\"... (" + std::to_string(role.size()) + " bytes)";
}

}  // namespace internal

namespace {

// nlohmann's tree as discriminate() looks at it (discriminate.hpp). `J` is
// `const Json` to copy strings and inputs out, `Json` to move them out (the
// loader owns its parsed values).
template <class J>
struct JsonTree {
  using V = J*;
  static internal::JsonKind kind(V value) {
    using internal::JsonKind;
    switch (value->type()) {
      case Json::value_t::null: return JsonKind::null;
      case Json::value_t::boolean: return JsonKind::boolean;
      case Json::value_t::string: return JsonKind::string;
      case Json::value_t::array: return JsonKind::array;
      case Json::value_t::object: return JsonKind::object;
      default: return JsonKind::number;  // integer, unsigned, float (a binary value never comes from JSON text)
    }
  }
  // A loaded object never holds a key twice (repeated keys merge as they
  // are read, SPEC.md §2), nor does one built in memory.
  static std::optional<V> member(V object, const char* key) {
    auto it = object->find(key);
    if (it == object->end()) return std::nullopt;
    return &*it;
  }
  static std::size_t size(V array) { return array->size(); }
  static V item(V array, std::size_t i) { return &(*array)[i]; }
  static std::string_view view(V string) { return string->template get_ref<const std::string&>(); }
  static std::string text(V string) {
    if constexpr (std::is_const_v<J>) {
      return string->template get_ref<const std::string&>();
    } else {
      return std::move(string->template get_ref<std::string&>());
    }
  }
  static bool flag(V boolean) { return boolean->template get<bool>(); }
  static ToolInput input(V value) {
    if constexpr (std::is_const_v<J>) {
      return ToolInput(*value);
    } else {
      return ToolInput(std::move(*value));
    }
  }
};

template <class J>
internal::Verdict discriminate_json(J& json) {
  JsonTree<J> tree;
  return internal::discriminate(tree, &json);
}

// The canonical text of a tool call's input, or nullopt when it has none.
std::optional<std::string> printed_input(const Json& value) {
  std::string text;
  try {
    internal::append_canonical_value(text, value, internal::kToolInputDepth);
  } catch (const SerializationError&) {
    return std::nullopt;
  }
  return text;
}

std::optional<Message> to_optional(internal::Verdict&& verdict) {
  if (auto* message = std::get_if<Message>(&verdict)) return std::move(*message);
  return std::nullopt;
}

}  // namespace

ToolInput::ToolInput(const Json& value) {
  if (auto text = printed_input(value)) {
    canonical_json_ = std::move(*text);
  } else {
    unprintable_ = value;
  }
}

ToolInput::ToolInput(Json&& value) {
  if (auto text = printed_input(value)) {
    canonical_json_ = std::move(*text);
  } else {
    unprintable_ = std::move(value);
  }
}

ToolInput::ToolInput(ToolInput&& other) noexcept
    : canonical_json_(std::move(other.canonical_json_)), unprintable_(std::move(other.unprintable_)) {
  other.become_null();
}

// An unprintable value is a tree built in memory: destroyed without
// allocating (json_teardown.hpp), as noexcept and destructors must.
ToolInput::~ToolInput() {
  if (unprintable_) internal::tear_down(*unprintable_);
}

ToolInput& ToolInput::operator=(ToolInput&& other) noexcept {
  if (this != &other) {
    if (unprintable_) internal::tear_down(*unprintable_);
    canonical_json_ = std::move(other.canonical_json_);
    unprintable_ = std::move(other.unprintable_);
    other.become_null();
  }
  return *this;
}

// "null" fits the string's inline buffer: no allocation, so no throw.
void ToolInput::become_null() noexcept {
  canonical_json_.assign("null");
  unprintable_.reset();
}

Json ToolInput::value() const {
  if (unprintable_) return *unprintable_;
  // Canonical text is JSON that parse_json_line always accepts.
  return std::get<Json>(internal::parse_json_line(canonical_json_));
}

std::optional<std::string_view> ToolInput::canonical_json() const noexcept {
  if (unprintable_) return std::nullopt;
  return canonical_json_;
}

bool operator==(const ToolInput& a, const ToolInput& b) {
  if (a.unprintable_ || b.unprintable_) return a.unprintable_ == b.unprintable_;
  return a.canonical_json_ == b.canonical_json_;
}

const char* role_of(const Message& message) noexcept {
  static constexpr const char* kRoles[] = {"user", "assistant", "tool"};
  return kRoles[message.index()];
}

std::optional<Message> parse_session_message(const Json& json) {
  return to_optional(discriminate_json(json));
}

std::optional<Message> parse_session_message(Json&& json) {
  return to_optional(discriminate_json(json));
}

std::optional<std::string> describe_invalid_record(const Json& json) {
  auto verdict = discriminate_json(json);
  if (auto* reason = std::get_if<std::string>(&verdict)) return std::move(*reason);
  return std::nullopt;
}

namespace internal {

std::variant<Message, std::string> discriminate_record(Json&& json) { return discriminate_json(json); }

}  // namespace internal

void append_canonical_json(std::string& out, const Message& message) {
  internal::StringSink sink{out};
  internal::write_message(sink, message);
}

std::string to_canonical_json(const Message& message) {
  std::string out;
  append_canonical_json(out, message);
  return out;
}

std::string to_canonical_jsonl(std::span<const Message> messages) {
  std::string text;
  for (const auto& message : messages) {
    append_canonical_json(text, message);
    text.push_back('\n');
  }
  return text;
}

}  // namespace agent_session
