// Errors used across ftroute. Every error names where it happened: a file and line for
// input files, a switch/port for fabric problems, an engine for routing problems.
#pragma once

#include <stdexcept>
#include <string>

namespace ftroute {

// Base class of every ftroute error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Malformed input file. what() is "<file>:<line>: <message>" (line 0 = whole file).
class ParseError : public Error {
 public:
  ParseError(std::string file, int line, const std::string& message)
      : Error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + message),
        file_(std::move(file)),
        line_(line) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  std::string file_;
  int line_;
};

// Inconsistent fabric (port out of range, link to itself, duplicate node id, ...).
class FabricError : public Error {
 public:
  using Error::Error;
};

// A routing engine cannot serve this fabric (wrong shape, too many faults, too few VLs,
// disconnected fabric). The plugin logs what() and returns a negative code so OpenSM
// falls back to the next engine.
class EngineError : public Error {
 public:
  EngineError(const std::string& engine, const std::string& reason)
      : Error(engine + ": " + reason), engine_(engine), reason_(reason) {}
  const std::string& engine() const { return engine_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string engine_;
  std::string reason_;
};

// Bad command-line / plugin option.
class OptionError : public Error {
 public:
  using Error::Error;
};

}  // namespace ftroute
