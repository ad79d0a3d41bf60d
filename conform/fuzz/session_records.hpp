// SessionWriter's records (session_records.cpp): messages of every role,
// lines that are not JSON or not a message, and tool-call histories. They
// are SessionWriter's members, declared with it.
#pragma once

#include "conform/fuzz/session_writer.hpp"
