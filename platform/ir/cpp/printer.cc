#include "platform/ir/cpp/printer.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "platform/ir/cpp/attrs.h"

namespace rocke::ir {

namespace {

// Attrs is a sorted map: Python prints sorted(attrs) too.
void format_attrs(std::string& out, const Attrs& attrs) {
  out += '{';
  const char* sep = "";
  for (const auto& [key, value] : attrs) {
    out += sep;
    out += key;
    out += " = ";
    format_attr(out, value);
    sep = ", ";
  }
  out += '}';
}

class Printer {
 public:
  explicit Printer(const Kernel& kernel) : kernel_(kernel), numbers_(kernel.values.size(), kUnnumbered) {
    for (const Value* a : kernel.args) {
      if (kernel.owns(a)) {
        numbers_[a->index] = kArgument;
      } else {
        other_args_.insert(a);
      }
    }
  }

  // Kernel arguments keep their names; every other value is numbered when
  // the text first names it. The kernel's own values are looked up by
  // Value::index; a value it does not own (an unverified kernel) in a map.
  void name(const Value* value) {
    out_ += '%';
    int* number;
    if (kernel_.owns(value)) {
      number = &numbers_[value->index];
    } else if (other_args_.contains(value)) {
      number = nullptr;
    } else {
      number = &other_numbers_.try_emplace(value, kUnnumbered).first->second;
    }
    if (number == nullptr || *number == kArgument) {
      out_ += value->name;
      return;
    }
    if (*number == kUnnumbered) *number = counter_++;
    out_ += std::to_string(*number);
  }

  void block(const Block& block, int indent) {
    if (!block.args.empty()) {
      out_.append(indent - 2, ' ');
      out_ += "^(";
      const char* sep = "";
      for (const Value* a : block.args) {
        out_ += sep;
        name(a);
        out_ += ": ";
        out_ += a->type->str();
        sep = ", ";
      }
      out_ += "):\n";
    }
    for (const auto& op : block.ops) this->op(*op, indent);
  }

  void op(const Op& op, int indent) {
    out_.append(indent, ' ');
    // Python names results before operands: the numbering follows the text.
    if (!op.results.empty()) {
      names(op.results);
      out_ += " = ";
    }
    out_ += op.name;
    out_ += '(';
    names(op.operands);
    out_ += ')';
    if (!op.attrs.empty()) {
      out_ += ' ';
      format_attrs(out_, op.attrs);
    }
    if (!op.results.empty()) {
      out_ += " : ";
      const char* sep = "";
      for (const Value* r : op.results) {
        out_ += sep;
        out_ += r->type->str();
        sep = ", ";
      }
    }
    if (op.regions.empty()) {
      out_ += '\n';
      return;
    }
    out_ += " {\n";
    for (size_t i = 0; i < op.regions.size(); ++i) {
      if (i) {
        out_.append(indent, ' ');
        out_ += "} {\n";
      }
      block(op.regions[i], indent + 2);
    }
    out_.append(indent, ' ');
    out_ += "}\n";
  }

  std::string& out() { return out_; }

 private:
  void names(const std::vector<Value*>& values) {
    const char* sep = "";
    for (const Value* v : values) {
      out_ += sep;
      name(v);
      sep = ", ";
    }
  }

  static constexpr int kUnnumbered = -1;
  static constexpr int kArgument = -2;
  const Kernel& kernel_;
  std::vector<int> numbers_;  // by Value::index: a number, kUnnumbered or kArgument
  std::unordered_set<const Value*> other_args_;
  std::unordered_map<const Value*, int> other_numbers_;
  int counter_ = 0;
  std::string out_;
};

}  // namespace

std::string print_kernel(const Kernel& kernel) {
  Printer p(kernel);
  std::string& out = p.out();
  out += "kernel @" + kernel.name + "(";
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    out += i ? ", %" : "%";
    out += kernel.args[i]->name + ": " + kernel.args[i]->type->str();
  }
  out += ')';
  if (!kernel.attrs.empty()) {
    out += ' ';
    format_attrs(out, kernel.attrs);
  }
  out += " {\n";
  p.block(kernel.body, 2);
  out += "}\n";
  return std::move(out);
}

}  // namespace rocke::ir
