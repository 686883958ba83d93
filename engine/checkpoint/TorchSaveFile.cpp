#include "engine/checkpoint/TorchSaveFile.h"

#include <torch/torch.h>

#include <cstring>
#include <map>

#include "engine/core/Check.h"

namespace tbench {

namespace {

using Kind = PickleValue::Kind;

/// The dtype of a storage class torch.save names ("FloatStorage"), or nullopt.
std::optional<torch::ScalarType> storageType(const std::string& name) {
  static const std::map<std::string, torch::ScalarType> types = {
      {"torch.FloatStorage", torch::kFloat32}, {"torch.DoubleStorage", torch::kFloat64},
      {"torch.HalfStorage", torch::kFloat16},  {"torch.BFloat16Storage", torch::kBFloat16},
      {"torch.LongStorage", torch::kInt64},    {"torch.IntStorage", torch::kInt32},
      {"torch.ShortStorage", torch::kInt16},   {"torch.CharStorage", torch::kInt8},
      {"torch.ByteStorage", torch::kUInt8},    {"torch.BoolStorage", torch::kBool}};
  const auto it = types.find(name);
  if (it == types.end()) return std::nullopt;
  return it->second;
}

class Reader {
 public:
  Reader(const std::string& path, const std::vector<char>& bytes,
         const std::vector<ZipRecord>& records)
      : path_(path), bytes_(bytes) {
    for (const ZipRecord& r : records) records_.emplace(r.name, r);
    for (const ZipRecord& r : records) {
      const size_t slash = r.name.find('/');
      if (slash != std::string::npos &&
          r.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
        prefix_ = r.name.substr(0, slash);
        pickle_ = &records_.at(r.name);
      }
    }
    if (pickle_ == nullptr) fail("no <name>/data.pkl record: not written by torch.save");
    if (!pickle_->stored) fail("its data.pkl is compressed, which torch.save never writes");
  }

  ~Reader() {
    // A hostile pickle can put a container into itself (memo, then APPEND): shared pointers in a
    // cycle, never freed. What is returned is a copy without cycles (run()); every value made
    // here lets go of its items.
    for (const auto& weak : all_) {
      if (const PickleValuePtr v = weak.lock()) {
        v->items.clear();
        v->entries.clear();
      }
    }
  }

  PickleValuePtr run() {
    std::map<const PickleValue*, PickleValuePtr> copies;
    return copyOf(evaluate(), copies, 0);
  }

 private:
  PickleValuePtr make(Kind kind) {
    auto v = std::make_shared<PickleValue>();
    v->kind = kind;
    all_.push_back(v);
    return v;
  }

  /// `v` and what it holds, each value copied once (shared where the pickle shared it);
  /// refused when a value holds itself or nests deeper than a state_dict does.
  PickleValuePtr copyOf(const PickleValuePtr& v,
                        std::map<const PickleValue*, PickleValuePtr>& copies, int depth) {
    if (depth > 64) fail("values nested more than 64 deep");
    if (const auto done = copies.find(v.get()); done != copies.end()) {
      if (!done->second) fail("a value that holds itself");
      return done->second;
    }
    copies[v.get()] = nullptr;  // in progress
    auto copy = std::make_shared<PickleValue>();
    copy->kind = v->kind;
    copy->integer = v->integer;
    copy->number = v->number;
    copy->text = v->text;
    copy->tensor = v->tensor;
    for (const auto& item : v->items) copy->items.push_back(copyOf(item, copies, depth + 1));
    for (const auto& [key, value] : v->entries) {
      copy->entries.emplace_back(copyOf(key, copies, depth + 1), copyOf(value, copies, depth + 1));
    }
    copies[v.get()] = copy;
    return copy;
  }

  PickleValuePtr evaluate() {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes_.data()) + pickle_->offset;
    const uint64_t size = pickle_->size;
    uint64_t at = 0;
    const auto need = [&](uint64_t n) {
      if (n > size - at) fail(str("the pickle is cut off at byte ", at));
    };
    const auto le = [&](int width) {
      need(width);
      uint64_t v = 0;
      for (int i = width - 1; i >= 0; --i) v = (v << 8) | p[at + i];
      at += width;
      return v;
    };
    const auto line = [&] {
      const uint64_t begin = at;
      while (at < size && p[at] != '\n') ++at;
      if (at >= size) fail("the pickle is cut off in a GLOBAL");
      return std::string(reinterpret_cast<const char*>(p + begin), at++ - begin);
    };
    const auto text = [&](uint64_t n) {
      need(n);
      std::string s(reinterpret_cast<const char*>(p + at), n);
      at += n;
      return s;
    };
    while (true) {
      need(1);
      const uint64_t opcodeAt = at;
      const uint8_t op = p[at++];
      switch (op) {
        case 0x80:  // PROTO
          le(1);
          break;
        case 0x95:  // FRAME
          le(8);
          break;
        case '.':  // STOP
          return pop();
        case '(':  // MARK
          marks_.push_back(stack_.size());
          break;
        case 'N':
          push(make(Kind::None));
          break;
        case 0x88:
        case 0x89: {  // NEWTRUE, NEWFALSE
          auto v = make(Kind::Bool);
          v->integer = op == 0x88;
          push(v);
          break;
        }
        case 'K':
        case 'M':
        case 'J': {  // BININT1, BININT2, BININT (signed)
          auto v = make(Kind::Int);
          const uint64_t raw = le(op == 'K' ? 1 : op == 'M' ? 2 : 4);
          v->integer = op == 'J' ? int64_t(int32_t(uint32_t(raw))) : int64_t(raw);
          push(v);
          break;
        }
        case 0x8a: {  // LONG1: n little-endian two's-complement bytes
          const uint64_t n = le(1);
          if (n > 8) fail(str("an integer of ", n, " bytes at byte ", opcodeAt));
          need(n);
          uint64_t raw = 0;
          for (uint64_t i = 0; i < n; ++i) raw |= uint64_t(p[at + i]) << (8 * i);
          if (n > 0 && n < 8 && (p[at + n - 1] & 0x80)) raw |= ~uint64_t(0) << (8 * n);
          at += n;
          auto v = make(Kind::Int);
          v->integer = int64_t(raw);
          push(v);
          break;
        }
        case 'G': {  // BINFLOAT: big-endian double
          need(8);
          uint64_t raw = 0;
          for (int i = 0; i < 8; ++i) raw = (raw << 8) | p[at + i];
          at += 8;
          auto v = make(Kind::Float);
          std::memcpy(&v->number, &raw, 8);
          push(v);
          break;
        }
        case 'X':
        case 0x8c:
        case 0x8d: {  // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
          auto v = make(Kind::String);
          v->text = text(le(op == 'X' ? 4 : op == 0x8c ? 1 : 8));
          push(v);
          break;
        }
        case 'B':
        case 'C':
        case 0x8e: {  // BINBYTES, SHORT_BINBYTES, BINBYTES8
          auto v = make(Kind::Bytes);
          v->text = text(le(op == 'B' ? 4 : op == 'C' ? 1 : 8));
          push(v);
          break;
        }
        case 'q':
        case 'r': {  // BINPUT, LONG_BINPUT
          const uint64_t index = le(op == 'q' ? 1 : 4);
          if (stack_.empty()) fail(str("BINPUT on an empty stack at byte ", opcodeAt));
          memo_[index] = stack_.back();
          break;
        }
        case 0x94:  // MEMOIZE
          if (stack_.empty()) fail(str("MEMOIZE on an empty stack at byte ", opcodeAt));
          memo_[memo_.size()] = stack_.back();
          break;
        case 'h':
        case 'j': {  // BINGET, LONG_BINGET
          const uint64_t index = le(op == 'h' ? 1 : 4);
          const auto it = memo_.find(index);
          if (it == memo_.end())
            fail(str("memo index ", index, " was never put (byte ", opcodeAt, ")"));
          push(it->second);
          break;
        }
        case 'c': {  // GLOBAL module\nname\n
          const std::string module = line();
          const std::string name = line();
          auto v = make(Kind::Opaque);
          v->text = "global " + module + "." + name;
          push(v);
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          const PickleValuePtr name = pop(), module = pop();
          auto v = make(Kind::Opaque);
          v->text = "global " + module->text + "." + name->text;
          push(v);
          break;
        }
        case ')':
          push(make(Kind::Tuple));
          break;
        case ']':
          push(make(Kind::List));
          break;
        case '}':
          push(make(Kind::Dict));
          break;
        case 0x85:
        case 0x86:
        case 0x87: {  // TUPLE1, TUPLE2, TUPLE3
          auto v = make(Kind::Tuple);
          v->items.resize(op - 0x84);
          for (size_t i = v->items.size(); i-- > 0;) v->items[i] = pop();
          push(v);
          break;
        }
        case 't':
        case 'l': {  // TUPLE, LIST (from the mark)
          auto v = make(op == 't' ? Kind::Tuple : Kind::List);
          v->items = popToMark();
          push(v);
          break;
        }
        case 'd': {  // DICT (from the mark)
          auto v = make(Kind::Dict);
          addItems(*v, popToMark());
          push(v);
          break;
        }
        case 'a': {  // APPEND
          const PickleValuePtr item = pop();
          top(Kind::List).items.push_back(item);
          break;
        }
        case 'e': {  // APPENDS
          auto items = popToMark();
          PickleValue& list = top(Kind::List);
          list.items.insert(list.items.end(), items.begin(), items.end());
          break;
        }
        case 's': {  // SETITEM
          const PickleValuePtr value = pop(), key = pop();
          top(Kind::Dict).entries.emplace_back(key, value);
          break;
        }
        case 'u': {  // SETITEMS
          // The items first, then the dict under them: as arguments of one call the two had no
          // order, and clang (left to right) read the last item as the dict.
          const std::vector<PickleValuePtr> items = popToMark();
          addItems(top(Kind::Dict), items);
          break;
        }
        case 'b':  // BUILD: an object's state (a state_dict's _metadata): dropped
          pop();
          if (stack_.empty()) fail(str("BUILD without an object at byte ", opcodeAt));
          break;
        case '0':  // POP
          pop();
          break;
        case '1':  // POP_MARK
          popToMark();
          break;
        case '2':  // DUP
          if (stack_.empty()) fail(str("DUP on an empty stack at byte ", opcodeAt));
          push(stack_.back());
          break;
        case 'R': {  // REDUCE
          const PickleValuePtr args = pop(), callable = pop();
          push(reduce(*callable, *args));
          break;
        }
        case 0x81: {  // NEWOBJ
          const PickleValuePtr args = pop(), cls = pop();
          auto v = make(Kind::Opaque);
          v->text = cls->text;
          push(v);
          break;
        }
        case 'Q': {  // BINPERSID: a storage record
          const PickleValuePtr id = pop();
          push(storage(*id));
          break;
        }
        default: {
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02x", op);
          fail(str("opcode ", hex, " at byte ", opcodeAt, " is not one torch.save writes"));
        }
      }
      if (stack_.size() > 10'000'000) fail("the pickle's stack grows without end");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(
        str(path_, ": not a state_dict torch.save wrote that can be read (", why, ")"));
  }

  void push(PickleValuePtr v) { stack_.push_back(std::move(v)); }
  PickleValuePtr pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) {
      fail("an opcode takes a value the stack does not have");
    }
    PickleValuePtr v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  std::vector<PickleValuePtr> popToMark() {
    if (marks_.empty()) fail("an opcode takes the values above a mark, and there is none");
    std::vector<PickleValuePtr> items(stack_.begin() + static_cast<ptrdiff_t>(marks_.back()),
                                      stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  PickleValue& top(Kind kind) {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) {
      fail("an opcode adds to a value the stack does not have");
    }
    PickleValue& v = *stack_.back();
    // An opaque object (an OrderedDict subclass, a class of a Lightning checkpoint) takes what
    // a dict or list would: its items are dropped with it.
    if (v.kind != kind && v.kind != Kind::Opaque)
      fail("an opcode adds items to a value of another kind");
    return v;
  }
  void addItems(PickleValue& dict, const std::vector<PickleValuePtr>& items) {
    if (items.size() % 2 != 0) fail("a dict's items are not key, value pairs");
    for (size_t i = 0; i < items.size(); i += 2) dict.entries.emplace_back(items[i], items[i + 1]);
  }

  const std::vector<PickleValuePtr>& args(const PickleValue& tuple, size_t least) const {
    if (tuple.kind != Kind::Tuple || tuple.items.size() < least) {
      fail(str("a call with ", tuple.items.size(), " arguments, ", least, " expected"));
    }
    return tuple.items;
  }

  int64_t integer(const PickleValue& v) const {
    if (v.kind != Kind::Int) fail("an integer expected in a tensor's description");
    return v.integer;
  }

  std::vector<int64_t> integers(const PickleValue& v) const {
    if (v.kind != Kind::Tuple && v.kind != Kind::List) fail("a tuple of sizes expected");
    std::vector<int64_t> out;
    for (const auto& item : v.items) out.push_back(integer(*item));
    return out;
  }

  PickleValuePtr reduce(const PickleValue& callable, const PickleValue& arguments) {
    const std::string& name = callable.text;
    if (name == "global collections.OrderedDict" || name == "global builtins.dict") {
      return make(Kind::Dict);
    }
    if (name == "global torch._utils._rebuild_tensor_v2" ||
        name == "global torch._utils._rebuild_tensor") {
      const auto& a = args(arguments, 4);
      if (a[0]->kind != Kind::Tensor) fail("_rebuild_tensor_v2 without a storage");
      const torch::Tensor& storage = a[0]->tensor;
      const int64_t offset = integer(*a[1]);
      const std::vector<int64_t> sizes = integers(*a[2]), strides = integers(*a[3]);
      if (sizes.size() != strides.size()) fail("a tensor's sizes and strides differ in length");
      // The view must stay inside its storage.
      int64_t last = offset;
      bool empty = false;
      for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] < 0 || strides[d] < 0) fail("a tensor with a negative size or stride");
        if (sizes[d] == 0) empty = true;
        int64_t step = 0;
        if (__builtin_mul_overflow(sizes[d] > 0 ? sizes[d] - 1 : 0, strides[d], &step) ||
            __builtin_add_overflow(last, step, &last)) {
          fail("a tensor's view overflows");
        }
      }
      if (offset < 0 || (!empty && last >= storage.numel())) {
        fail(tbench::str("a tensor of sizes ", torch::IntArrayRef(sizes),
                         " reaches past its storage of ", storage.numel(), " elements"));
      }
      auto v = make(Kind::Tensor);
      v->tensor = empty ? torch::empty(sizes, storage.options())
                        : storage.as_strided(sizes, strides, offset);
      return v;
    }
    if (name == "global torch._utils._rebuild_parameter" ||
        name == "global torch._utils._rebuild_parameter_with_state") {
      const auto& a = args(arguments, 1);
      if (a[0]->kind != Kind::Tensor) fail("_rebuild_parameter without a tensor");
      return a[0];
    }
    auto v = make(Kind::Opaque);
    v->text = name;
    return v;
  }

  PickleValuePtr storage(const PickleValue& id) {
    // ('storage', <storage class>, key, location, numel)
    const auto& a = args(id, 5);
    if (a[0]->kind != Kind::String || a[0]->text != "storage" || a[2]->kind != Kind::String) {
      fail("a persistent id that is not ('storage', type, key, location, numel)");
    }
    const std::string type = a[1]->text.rfind("global ", 0) == 0 ? a[1]->text.substr(7) : "";
    const std::optional<torch::ScalarType> dtype = storageType(type);
    if (!dtype)
      fail(str("a storage of type \"", a[1]->text, "\", which this reader does not know"));
    const std::string& key = a[2]->text;
    if (auto cached = storages_.find(key); cached != storages_.end()) return cached->second;
    const int64_t numel = integer(*a[4]);
    const auto record = records_.find(prefix_ + "/data/" + key);
    if (record == records_.end()) fail(str("no record data/", key, " for a storage"));
    if (!record->second.stored) fail(str("data/", key, " is compressed"));
    const size_t itemSize = c10::elementSize(*dtype);
    if (numel < 0 || uint64_t(numel) > record->second.size / itemSize) {
      fail(str("data/", key, " holds ", record->second.size, " bytes, not ", numel, " elements"));
    }
    auto v = make(Kind::Tensor);
    v->tensor = torch::empty({numel}, torch::TensorOptions().dtype(*dtype));
    if (numel > 0) {
      std::memcpy(v->tensor.data_ptr(), bytes_.data() + record->second.offset, numel * itemSize);
    }
    storages_.emplace(key, v);
    return v;
  }

  const std::string& path_;
  const std::vector<char>& bytes_;
  std::map<std::string, ZipRecord> records_;
  std::string prefix_;
  const ZipRecord* pickle_ = nullptr;
  std::vector<PickleValuePtr> stack_;
  std::vector<size_t> marks_;
  std::map<uint64_t, PickleValuePtr> memo_;
  std::map<std::string, PickleValuePtr> storages_;
  std::vector<std::weak_ptr<PickleValue>> all_;
};

}  // namespace

PickleValuePtr readTorchSave(const std::string& path, const std::vector<char>& bytes,
                             const std::vector<ZipRecord>& records) {
  return Reader(path, bytes, records).run();
}

}  // namespace tbench
