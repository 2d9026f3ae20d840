#include "platform/cpp/ir/printer.h"

#include <unordered_map>

#include "platform/cpp/ir/literals.h"

namespace rocke::ir {

namespace {

std::string format_attr(const AttrValue& value) {
  if (value.is_bool()) return value.as_bool() ? "true" : "false";
  if (value.is_int()) return std::to_string(value.as_int());
  if (value.is_float()) return float_text(value.as_float());
  if (value.is_str()) return string_text(value.as_str());
  std::string out = "[";
  for (const AttrValue& item : value.as_list()) {
    if (out.size() > 1) out += ", ";
    out += format_attr(item);
  }
  return out + "]";
}

// Attrs is a sorted map: Python prints sorted(attrs) too.
std::string format_attrs(const Attrs& attrs) {
  std::string out = "{";
  for (const auto& [key, value] : attrs) {
    if (out.size() > 1) out += ", ";
    out += key + " = " + format_attr(value);
  }
  return out + "}";
}

class Printer {
 public:
  explicit Printer(const Kernel& kernel) {
    for (const Value* a : kernel.args) names_[a] = a->name;
  }

  std::string name(const Value* value) {
    auto it = names_.find(value);
    if (it == names_.end()) it = names_.emplace(value, std::to_string(counter_++)).first;
    return "%" + it->second;
  }

  void block(const Block& block, int indent) {
    if (!block.args.empty()) {
      std::string args;
      for (const Value* a : block.args) {
        if (!args.empty()) args += ", ";
        args += name(a) + ": " + a->type->str();
      }
      lines_ += std::string(indent - 2, ' ') + "^(" + args + "):\n";
    }
    for (const auto& op : block.ops) this->op(*op, indent);
  }

  void op(const Op& op, int indent) {
    std::string text(indent, ' ');
    // Python names results before operands: the numbering follows the text.
    if (!op.results.empty()) {
      for (size_t i = 0; i < op.results.size(); ++i) text += (i ? ", " : "") + name(op.results[i]);
      text += " = ";
    }
    text += op.name + "(";
    for (size_t i = 0; i < op.operands.size(); ++i) text += (i ? ", " : "") + name(op.operands[i]);
    text += ")";
    if (!op.attrs.empty()) text += " " + format_attrs(op.attrs);
    if (!op.results.empty()) {
      text += " : ";
      for (size_t i = 0; i < op.results.size(); ++i) text += (i ? ", " : "") + op.results[i]->type->str();
    }
    if (op.regions.empty()) {
      lines_ += text + "\n";
      return;
    }
    lines_ += text + " {\n";
    for (size_t i = 0; i < op.regions.size(); ++i) {
      if (i) lines_ += std::string(indent, ' ') + "} {\n";
      block(op.regions[i], indent + 2);
    }
    lines_ += std::string(indent, ' ') + "}\n";
  }

  std::string& lines() { return lines_; }

 private:
  std::unordered_map<const Value*, std::string> names_;
  int counter_ = 0;
  std::string lines_;
};

}  // namespace

std::string print_kernel(const Kernel& kernel) {
  Printer p(kernel);
  std::string head = "kernel @" + kernel.name + "(";
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    head += (i ? ", %" : "%") + kernel.args[i]->name + ": " + kernel.args[i]->type->str();
  }
  head += ")";
  if (!kernel.attrs.empty()) head += " " + format_attrs(kernel.attrs);
  p.lines() += head + " {\n";
  p.block(kernel.body, 2);
  p.lines() += "}\n";
  return std::move(p.lines());
}

}  // namespace rocke::ir
