#include "typed/typed_ops.hpp"

#include "typed/visit.hpp"

#include <lookback/primitives/cpu/reduce.hpp>
#include <lookback/primitives/cpu/scan.hpp>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>

namespace lookback::typed {

std::optional<op_kind> parse_op(std::string_view name) {
  if (name == "sum") return op_kind::sum;
  if (name == "min") return op_kind::min;
  if (name == "max") return op_kind::max;
  return std::nullopt;
}

std::string_view op_name(op_kind op) {
  switch (op) {
    case op_kind::sum: return "sum";
    case op_kind::min: return "min";
    case op_kind::max: return "max";
  }
  return "?";
}

std::string_view implementation_name(implementation impl) { return impl == implementation::cub ? "cub" : "lookback"; }

bool is_numeric(io::dtype type) {
  switch (type) {
    case io::dtype::int32: case io::dtype::uint32: case io::dtype::int64:
    case io::dtype::uint64: case io::dtype::float32: case io::dtype::float64: return true;
    default: return false;
  }
}

std::string numeric_dtype_list() { return "int32, uint32, int64, uint64, float32, float64"; }

namespace {
template <class T>
scalar make_scalar(T value) {
  scalar s;
  s.type = io::dtype_of<T>();
  std::memcpy(s.bytes.data(), &value, sizeof(T));
  return s;
}

}  // namespace

std::optional<scalar> parse_scalar(io::dtype type, std::string_view text) {
  return visit_numeric(type, [&](auto zero) -> std::optional<scalar> {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      T value{};
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
      return make_scalar(value);
    } else {
      // from_chars for floating point needs GCC 11; strtod is enough and handles inf and nan.
      const std::string copy(text);
      // strtod skips leading white space, which the integer types' parse refuses: so do the floats.
      if (copy.empty() || std::isspace(static_cast<unsigned char>(copy.front())) != 0) return std::nullopt;
      char* end = nullptr;
      errno = 0;
      const double value = std::strtod(copy.c_str(), &end);
      if (end != copy.c_str() + copy.size()) return std::nullopt;
      // Finite text that does not fit the type is refused, past its largest value or so small that it
      // would be taken as zero; "inf" and "nan" are taken as written.
      const bool overflow = (errno == ERANGE && std::isinf(value)) || (std::isfinite(value) && std::isinf(static_cast<T>(value)));
      const bool underflow = (errno == ERANGE && value == 0) || (value != 0 && static_cast<T>(value) == 0);
      if (overflow || underflow) return std::nullopt;
      return make_scalar(static_cast<T>(value));
    }
  });
}

scalar identity(io::dtype type, op_kind op) {
  return visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    return visit_op(op, [](auto o) { return make_scalar(lookback::identity_of<T>(o)); });
  });
}

scalar load_scalar(io::dtype type, const void* value) {
  scalar s;
  s.type = type;
  std::memcpy(s.bytes.data(), value, io::dtype_size(type));
  return s;
}

double to_double(const scalar& value) {
  return visit_numeric(value.type, [&](auto zero) { return static_cast<double>(scalar_as<decltype(zero)>(value)); });
}

std::string format_scalar(const scalar& value) {
  return visit_numeric(value.type, [&](auto zero) {
    using T = decltype(zero);
    std::ostringstream out;
    if constexpr (std::is_floating_point_v<T>) out.precision(std::is_same_v<T, float> ? 9 : 17);
    out << scalar_as<T>(value);
    return out.str();
  });
}

void reduce_cpu(io::dtype type, op_kind op, const void* in, void* out, std::int64_t n) {
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(op, [&](auto o) {
      *static_cast<T*>(out) = cpu::reduce<T>(static_cast<const T*>(in), n, o, lookback::identity_of<T>(o));
    });
  });
}

void reduce_cpu_chunk(io::dtype type, op_kind op, const void* in, std::int64_t n, scalar& running) {
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(op, [&](auto o) {
      const T value = cpu::reduce<T>(static_cast<const T*>(in), n, o, scalar_as<T>(running));
      std::memcpy(running.bytes.data(), &value, sizeof(T));
    });
  });
}

void scan_cpu_chunk(const scan_spec& spec, const void* in, void* out, std::int64_t n, scalar& running, bool first) {
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(spec.op, [&](auto o) {
      const auto w = cpu::wrapping_op<T>(o);
      const T* x = static_cast<const T*>(in);
      T* y = static_cast<T*>(out);
      T value = scalar_as<T>(running);
      std::int64_t i = 0;
      if (spec.inclusive && first && n > 0) y[i++] = value = x[0];
      for (; i < n; ++i) {
        const T item = x[i];  // before the store: out may equal in
        if (spec.inclusive) {
          value = w(value, item);
          y[i] = value;
        } else {
          y[i] = value;
          value = w(value, item);
        }
      }
      std::memcpy(running.bytes.data(), &value, sizeof(T));
    });
  });
}

void scan_cpu(const scan_spec& spec, const void* in, void* out, std::int64_t n) {
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(spec.op, [&](auto o) {
      if (spec.inclusive)
        cpu::inclusive_scan<T>(static_cast<const T*>(in), static_cast<T*>(out), n, o);
      else
        cpu::exclusive_scan<T>(static_cast<const T*>(in), static_cast<T*>(out), n, scalar_as<T>(spec.init), o);
    });
  });
}

}  // namespace lookback::typed
