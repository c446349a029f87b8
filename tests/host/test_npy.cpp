// Tests for the CLI's file formats: .npy and raw reading/writing, atomic output
// and the same-file guard.  Everything runs in a private temporary directory.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "io/array.hpp"
#include "io/atomic_file.hpp"
#include "io/dtype.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"
#include "io/raw.hpp"

namespace fs = std::filesystem;
using namespace lookback::io;

namespace {

// --- helpers ------------------------------------------------------------------

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << p;
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

std::string le(std::uint64_t v, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// A .npy file built by hand, so tests do not trust the writer under test.  No
// padding: readers must not depend on it.
std::string npy_bytes(int major, const std::string& header, const std::string& data, int minor = 0) {
  std::string s("\x93NUMPY", 6);
  s += static_cast<char>(major);
  s += static_cast<char>(minor);
  s += le(header.size(), major == 1 ? 2 : 4);
  return s + header + data;
}

std::string dict(const std::string& descr, const std::string& shape, const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }\n";
}

// Asserts the io_error contract: kind, "<path>: " prefix, one line, and wording.
template <class F>
void expect_io_error(F&& f, error_kind kind, const fs::path& p, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected io_error containing \"" << fragment << "\"";
  } catch (const io_error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << msg;
    EXPECT_EQ(msg.rfind(p.string() + ": ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
  }
}

template <class T>
T sample(std::size_t i) {
  if constexpr (std::is_same_v<T, bool>)
    return i % 3 == 0;
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(i) * T(0.5) - T(3);
  else
    return static_cast<T>(i * 37u + 11u);  // wraps in narrow types, which is fine
}

template <class T>
host_array make_array(std::vector<std::int64_t> shape) {
  host_array a;
  a.type = dtype_of<T>();
  a.shape = std::move(shape);
  a.bytes.resize(static_cast<std::size_t>(a.size()) * sizeof(T));
  for (std::int64_t i = 0; i < a.size(); ++i) a.as<T>()[i] = sample<T>(static_cast<std::size_t>(i));
  return a;
}

class temp_dir_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "lookback-test-npy-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir, ec);
  }
  fs::path file_with(const std::string& name, const std::string& bytes) {
    const fs::path p = dir / name;
    write_file(p, bytes);
    return p;
  }

  fs::path dir;
};

// --- dtype and error plumbing --------------------------------------------------

TEST(Dtype, NamesSizesAndAliases) {
  const dtype all[] = {dtype::bool_,  dtype::int8,    dtype::int16,  dtype::int32,
                       dtype::int64,  dtype::uint8,   dtype::uint16, dtype::uint32,
                       dtype::uint64, dtype::float32, dtype::float64};
  const std::size_t sizes[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
  for (std::size_t i = 0; i < std::size(all); ++i) {
    EXPECT_EQ(dtype_size(all[i]), sizes[i]);
    EXPECT_EQ(parse_dtype(dtype_name(all[i])), all[i]) << dtype_name(all[i]);
  }
  EXPECT_EQ(dtype_name(dtype::bool_), "bool");
  EXPECT_EQ(dtype_name(dtype::float32), "float32");
  EXPECT_EQ(parse_dtype("f4"), dtype::float32);
  EXPECT_EQ(parse_dtype("f8"), dtype::float64);
  EXPECT_EQ(parse_dtype("float"), dtype::float32);
  EXPECT_EQ(parse_dtype("double"), dtype::float64);
  EXPECT_EQ(parse_dtype("i4"), dtype::int32);
  EXPECT_EQ(parse_dtype("u4"), dtype::uint32);
  EXPECT_EQ(parse_dtype("i8"), dtype::int64);
  EXPECT_EQ(parse_dtype("u8"), dtype::uint64);
  EXPECT_EQ(parse_dtype("INT16"), dtype::int16);
  EXPECT_FALSE(parse_dtype("int128").has_value());
  EXPECT_FALSE(parse_dtype("").has_value());
}

TEST(IoError, MessageIsOneLine) {
  const io_error e(error_kind::data_error, "a\nb.npy", "bad\nthing");
  EXPECT_STREQ(e.what(), "a b.npy: bad thing");
}

TEST(Array, SizeAndShapeString) {
  host_array a;
  EXPECT_EQ(a.size(), 1);
  a.shape = {3, 4};
  EXPECT_EQ(a.size(), 12);
  EXPECT_EQ(shape_string({}), "()");
  EXPECT_EQ(shape_string({5}), "(5,)");
  EXPECT_EQ(shape_string({3, 4}), "(3, 4)");
}

TEST(FileNames, ExtensionLower) {
  EXPECT_EQ(extension_lower("data/X.NPY"), ".npy");
  EXPECT_EQ(extension_lower("a.tar.GZ"), ".gz");
  EXPECT_EQ(extension_lower("noext"), "");
}

// --- .npy round trips -----------------------------------------------------------

template <class T>
class NpyRoundTrip : public temp_dir_test {};
using element_types =
    ::testing::Types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                     std::uint32_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(NpyRoundTrip, element_types);

TYPED_TEST(NpyRoundTrip, EveryShape) {
  const std::vector<std::vector<std::int64_t>> shapes = {{0},    {1},    {5},    {1000},
                                                         {3, 4}, {0, 3}, {7, 0}, {1, 1}};
  for (const auto& shape : shapes) {
    SCOPED_TRACE(shape_string(shape));
    const host_array a = make_array<TypeParam>(shape);
    const fs::path p = this->dir / "a.npy";
    write_npy(p, a);

    const std::string header = npy_header_for(a.type, a.shape);
    EXPECT_EQ(header.size() % 64, 0u);
    EXPECT_EQ(header.back(), '\n');
    EXPECT_EQ(fs::file_size(p), header.size() + a.bytes.size());

    const host_array b = read_npy(p);
    EXPECT_EQ(b.type, a.type);
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.bytes, a.bytes);
    EXPECT_EQ(entries(this->dir), std::set<std::string>{"a.npy"});  // no temporaries left
  }
}

TEST(NpyHeader, MatchesNumpyLayout) {
  const std::string h = npy_header_for(dtype::int32, {3});
  const std::string dict_text = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
  // NumPy writes 118 ("v\0") here too: 10 + 58 + 1 bytes rounded up to 128.
  ASSERT_EQ(h.size(), 128u);
  EXPECT_EQ(h.substr(0, 10), std::string("\x93NUMPY\x01\x00v\x00", 10));
  EXPECT_EQ(h.substr(10, dict_text.size()), dict_text);
  EXPECT_EQ(h.find_first_not_of(' ', 10 + dict_text.size()), 127u);
  EXPECT_NE(npy_header_for(dtype::bool_, {2, 2}).find("'|b1'"), std::string::npos);
  EXPECT_NE(npy_header_for(dtype::uint8, {2}).find("'|u1'"), std::string::npos);
  EXPECT_NE(npy_header_for(dtype::float64, {2}).find("'<f8'"), std::string::npos);
}

TEST(NpyHeader, FallsBackToVersion2WhenHeaderIsHuge) {
  const std::string h = npy_header_for(dtype::int8, std::vector<std::int64_t>(25000, 1));
  EXPECT_EQ(h[6], 2);
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(h.substr(8, 4), le(h.size() - 12, 4));
}

// --- reading hand-built files ------------------------------------------------

using NpyRead = temp_dir_test;

TEST_F(NpyRead, Version1KeysInAnyOrderWithoutTrailingComma) {
  const std::string data = le(1, 8) + le(2, 8) + le(3, 8) + le(4, 8) + le(5, 8) + le(6, 8);
  const auto p =
      file_with("v1.npy", npy_bytes(1, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i8'}", data));
  const host_array a = read_npy(p);
  EXPECT_EQ(a.type, dtype::int64);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(a.as<std::int64_t>()[5], 6);
}

// Column-major bytes are row-major ones while at most one extent exceeds 1.
TEST_F(NpyRead, FortranOrderWithOneLongAxisReadsAsCOrder) {
  std::string data;
  for (std::int32_t v : {1, 2, 3, 4}) data.append(reinterpret_cast<const char*>(&v), 4);
  for (const char* shape : {"(4,)", "(1, 4)", "(4, 1)"}) {
    SCOPED_TRACE(shape);
    const host_array a = read_npy(file_with("f.npy", npy_bytes(1, dict("<i4", shape, "True"), data)));
    EXPECT_EQ(a.size(), 4);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size()), data);
  }
}

TEST_F(NpyRead, Version2OddWhitespaceAndDoubleQuotes) {
  const auto p = file_with(
      "v2.npy", npy_bytes(2, "  {\n \"descr\" : \"<u2\" ,\t'fortran_order':False,'shape':( 4 , ) , }  \n",
                          le(7, 2) + le(8, 2) + le(9, 2) + le(65535, 2)));
  const host_array a = read_npy(p);
  EXPECT_EQ(a.type, dtype::uint16);
  EXPECT_EQ(a.shape, std::vector<std::int64_t>{4});
  EXPECT_EQ(a.as<std::uint16_t>()[3], 65535);
}

TEST_F(NpyRead, Version3) {
  float v = 1.5f;
  std::string data(reinterpret_cast<const char*>(&v), sizeof v);
  const auto p = file_with("v3.npy", npy_bytes(3, dict("<f4", "(1,)"), data));
  const host_array a = read_npy(p);
  EXPECT_EQ(a.type, dtype::float32);
  EXPECT_EQ(a.as<float>()[0], 1.5f);
}

TEST_F(NpyRead, AcceptedDescrSpellings) {
  const struct {
    const char* descr;
    dtype type;
  } cases[] = {{"|b1", dtype::bool_},  {"|i1", dtype::int8},    {"<i1", dtype::int8},  {"|u1", dtype::uint8},
               {"<u1", dtype::uint8},  {"=i4", dtype::int32},   {"<i2", dtype::int16}, {"<u4", dtype::uint32},
               {"<u8", dtype::uint64}, {"<f8", dtype::float64}, {">u1", dtype::uint8}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.descr);
    const auto p =
        file_with("d.npy", npy_bytes(1, dict(c.descr, "(2,)"), std::string(2 * dtype_size(c.type), '\1')));
    EXPECT_EQ(read_npy(p).type, c.type);
  }
}

TEST_F(NpyRead, Python2LongSuffixInShape) {
  const auto p = file_with("l.npy", npy_bytes(1, dict("<i2", "(2L, 1L)"), std::string(4, '\0')));
  EXPECT_EQ(read_npy(p).shape, (std::vector<std::int64_t>{2, 1}));
}

// --- .npy errors -------------------------------------------------------------

TEST_F(NpyRead, MissingFile) {
  const fs::path p = dir / "nope.npy";
  expect_io_error([&] { read_npy(p); }, error_kind::no_input, p, "No such file");
}

TEST_F(NpyRead, Directory) {
  expect_io_error([&] { read_npy(dir); }, error_kind::no_input, dir, "is a directory");
}

TEST_F(NpyRead, Unreadable) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads anything";
  const auto p = file_with("locked.npy", npy_bytes(1, dict("<i4", "(0,)"), ""));
  fs::permissions(p, fs::perms::none);
  expect_io_error([&] { read_npy(p); }, error_kind::no_input, p, "Permission denied");
}

struct bad_case {
  const char* name;
  std::string bytes;
  const char* fragment;
};

TEST_F(NpyRead, MalformedFilesAreDataErrors) {
  const std::string four_ints(16, '\0');
  const std::vector<bad_case> cases = {
      {"short", "\x93NU", "too short (3 bytes)"},
      {"magic", "\x93NUMPX\x01\x00\x10\x00" + dict("<i4", "(4,)") + four_ints, "bad magic"},
      {"version4", npy_bytes(4, dict("<i4", "(4,)"), four_ints), "unsupported .npy format version 4.0"},
      {"version1_1", npy_bytes(1, dict("<i4", "(4,)"), four_ints, 1), "version 1.1"},
      {"lenfield", std::string("\x93NUMPY\x02\x00\x05\x00", 10), "ends inside the header length field"},
      {"headerlen", std::string("\x93NUMPY\x01\x00\xff\x7f{'descr'", 17),
       "header length 32767 runs past end of file"},
      {"notdict", npy_bytes(1, "['descr', '<i4']", ""), "unparsable header"},
      {"unclosed", npy_bytes(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4,)", four_ints),
       "unparsable header"},
      {"nocolon", npy_bytes(1, "{'descr' '<i4'}", ""), "expected ':' after key 'descr'"},
      {"unterminated", npy_bytes(1, "{'descr': '<i4", ""), "unterminated string"},
      {"garbage", npy_bytes(1, dict("<i4", "(4,)") + "x", four_ints),
       "unexpected text after the header dict"},
      {"float_dim", npy_bytes(1, dict("<i4", "(3.5,)"), ""), "unparsable header"},
      {"string_dim", npy_bytes(1, dict("<i4", "('a',)"), ""), "non-integer"},
      {"deep", npy_bytes(1, dict("<i4", std::string(5000, '(')), ""), "nested too deeply"},
      {"shape_int", npy_bytes(1, dict("<i4", "4"), four_ints), "'shape' is not a tuple"},
      {"nokey", npy_bytes(1, "{'descr': '<i4', 'fortran_order': False}", ""), "header has no 'shape' key"},
      {"extrakey", npy_bytes(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), 'x': 1}", four_ints),
       "unexpected key 'x'"},
      {"dupkey",
       npy_bytes(1, "{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (4,)}", four_ints),
       "duplicate key 'descr'"},
      {"bigendian", npy_bytes(1, dict(">i4", "(4,)"), four_ints), "big-endian dtype '>i4' not supported"},
      {"fortran", npy_bytes(1, dict("<i4", "(2, 2)", "True"), four_ints), "Fortran-order"},
      {"fortran_type", npy_bytes(1, dict("<i4", "(4,)", "0"), four_ints),
       "'fortran_order' is not True or False"},
      {"object", npy_bytes(1, dict("|O", "(2,)"), four_ints), "object arrays ('|O') not supported"},
      {"complex", npy_bytes(1, dict("<c8", "(2,)"), four_ints), "complex dtype '<c8' not supported"},
      {"half", npy_bytes(1, dict("<f2", "(8,)"), four_ints), "unsupported dtype '<f2'"},
      {"unicode", npy_bytes(1, dict("<U4", "(1,)"), four_ints), "unsupported dtype '<U4'"},
      {"structured",
       npy_bytes(1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (4,)}", four_ints),
       "structured dtypes not supported"},
      {"three_d", npy_bytes(1, dict("<i4", "(1, 2, 2)"), four_ints),
       "3-D array not supported (1-D or 2-D expected)"},
      {"zero_d", npy_bytes(1, dict("<i4", "()"), four_ints.substr(0, 4)), "0-D (scalar) array not supported"},
      {"negative", npy_bytes(1, dict("<i4", "(-4,)"), four_ints), "negative dimension -4"},
      {"huge_dim", npy_bytes(1, dict("<i4", "(99999999999999999999,)"), four_ints),
       "shape dimension 99999999999999999999 is too large"},
      {"huge_product", npy_bytes(1, dict("<i4", "(4294967296, 4294967296)"), four_ints), "overflows 64 bits"},
      {"trailing", npy_bytes(1, dict("<i4", "(4,)"), four_ints + "xyz"),
       "trailing data after the array: header says 4 elements of int32 (16 bytes) but file holds 19 bytes (3 "
       "extra)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto p = file_with(std::string(c.name) + ".npy", c.bytes);
    expect_io_error([&] { read_npy(p); }, error_kind::data_error, p, c.fragment);
  }
}

TEST_F(NpyRead, TruncatedDataMessageIsExact) {
  const auto p = file_with("x.npy", npy_bytes(1, dict("<i4", "(1000,)"), std::string(396, '\0')));
  try {
    read_npy(p);
    FAIL() << "no error";
  } catch (const io_error& e) {
    EXPECT_EQ(e.kind(), error_kind::data_error);
    EXPECT_EQ(std::string(e.what()), p.string() +
                                         ": truncated data: header says 1000 elements of int32 "
                                         "(4000 bytes) but file holds 396 bytes");
  }
}

// A lying header must be rejected by arithmetic, not by a failed allocation.
TEST_F(NpyRead, HugeClaimedShapeIsRejectedBeforeAllocating) {
  const auto p = file_with("big.npy", npy_bytes(1, dict("<f8", "(1000000000000,)"), "12345678"));
  expect_io_error([&] { read_npy(p); }, error_kind::data_error, p, "truncated data");
}

// --- raw ---------------------------------------------------------------------

using Raw = temp_dir_test;

TEST_F(Raw, ReadsWholeElements) {
  const auto p = file_with("r.bin", le(1, 4) + le(2, 4) + le(0xffffffff, 4));
  const host_array a = read_raw(p, dtype::uint32);
  EXPECT_EQ(a.shape, std::vector<std::int64_t>{3});
  EXPECT_EQ(a.as<std::uint32_t>()[2], 0xffffffffu);
}

TEST_F(Raw, EmptyFileIsEmptyArray) {
  const auto p = file_with("e.bin", "");
  const host_array a = read_raw(p, dtype::float64);
  EXPECT_EQ(a.shape, std::vector<std::int64_t>{0});
  EXPECT_TRUE(a.bytes.empty());
}

TEST_F(Raw, SizeNotAMultiple) {
  const auto p = file_with("odd.bin", std::string(10, 'x'));
  expect_io_error([&] { read_raw(p, dtype::int32); }, error_kind::data_error, p,
                  "size 10 bytes is not a multiple of int32's 4 bytes");
}

TEST_F(Raw, MissingFile) {
  const fs::path p = dir / "missing.bin";
  expect_io_error([&] { read_raw(p, dtype::int8); }, error_kind::no_input, p, "No such file");
}

TEST_F(Raw, WriteThenRead) {
  const host_array a = make_array<std::int16_t>({3, 5});
  const fs::path p = dir / "w.bin";
  write_raw(p, a);
  EXPECT_EQ(fs::file_size(p), 30u);
  const host_array b = read_raw(p, dtype::int16);
  EXPECT_EQ(b.shape, std::vector<std::int64_t>{15});
  EXPECT_EQ(b.bytes, a.bytes);
}

// --- atomic output -----------------------------------------------------------

using AtomicFile = temp_dir_test;

TEST_F(AtomicFile, UncommittedLeavesNothing) {
  {
    atomic_output_file f(dir / "out.npy");
    f.write("partial");
    EXPECT_TRUE(fs::exists(f.temp_path()));
    EXPECT_EQ(f.temp_path().parent_path(), dir);
    EXPECT_EQ(f.temp_path().filename().string().rfind(".out.npy.tmp-", 0), 0u);
  }
  EXPECT_TRUE(entries(dir).empty());
}

TEST_F(AtomicFile, FailureLeavesExistingFileUnchanged) {
  const auto p = file_with("out.npy", "old contents");
  try {
    atomic_output_file f(p);
    f.write("new");
    throw std::runtime_error("simulated failure mid-write");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(read_file(p), "old contents");
  EXPECT_EQ(entries(dir), std::set<std::string>{"out.npy"});
}

TEST_F(AtomicFile, CommitReplacesWithUsualPermissions) {
  const auto p = file_with("out.bin", "old contents");
  {
    atomic_output_file f(p);
    f.write("new");
    f.commit();
  }
  EXPECT_EQ(read_file(p), "new");
  EXPECT_EQ(entries(dir), std::set<std::string>{"out.bin"});
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST_F(AtomicFile, MissingDirectory) {
  const fs::path p = dir / "no" / "such" / "out.npy";
  expect_io_error([&] { atomic_output_file f(p); }, error_kind::cant_create, p, "does not exist");
  expect_io_error([&] { write_npy(p, make_array<float>({2})); }, error_kind::cant_create, p,
                  "does not exist");
}

TEST_F(AtomicFile, OutputIsADirectory) {
  fs::create_directory(dir / "sub");
  expect_io_error([&] { write_raw(dir / "sub", make_array<float>({2})); }, error_kind::cant_create,
                  dir / "sub", "is a directory");
}

TEST_F(AtomicFile, SymlinkIsWrittenThrough) {
  const auto target = file_with("target.npy", "old contents");
  fs::create_symlink("target.npy", dir / "link.npy");
  {
    atomic_output_file f(dir / "link.npy");
    f.write("new");
    f.commit();
  }
  EXPECT_TRUE(fs::is_symlink(dir / "link.npy"));
  EXPECT_EQ(read_file(target), "new");
  EXPECT_EQ(entries(dir), (std::set<std::string>{"link.npy", "target.npy"}));
}

TEST_F(AtomicFile, DanglingSymlinkIsWrittenThrough) {
  // The link's target does not exist yet: it is created, and the link stays a link.
  fs::create_symlink("target.npy", dir / "link.npy");
  fs::create_symlink("link.npy", dir / "link2.npy");
  {
    atomic_output_file f(dir / "link2.npy");
    f.write("new");
    f.commit();
  }
  EXPECT_TRUE(fs::is_symlink(dir / "link.npy"));
  EXPECT_TRUE(fs::is_symlink(dir / "link2.npy"));
  EXPECT_EQ(read_file(dir / "target.npy"), "new");
  EXPECT_EQ(entries(dir), (std::set<std::string>{"link.npy", "link2.npy", "target.npy"}));
}

TEST_F(AtomicFile, FifoIsWrittenDirectlyAndStaysAFifo) {
  const fs::path p = dir / "pipe";
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0) << std::strerror(errno);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(p, std::ios::binary);
    got.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  {
    atomic_output_file f(p);
    f.write("through the pipe");
    f.commit();
  }
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(p));
  EXPECT_EQ(entries(dir), std::set<std::string>{"pipe"});
}

TEST_F(AtomicFile, DevicesAreWrittenNotReplaced) {
  if (!fs::is_character_file("/dev/null")) GTEST_SKIP() << "no /dev/null character device here";
  {
    atomic_output_file f("/dev/null");
    f.write("discarded");
    f.commit();
  }
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  if (!fs::is_character_file("/dev/full")) GTEST_SKIP() << "no /dev/full character device here";
  expect_io_error(
      [&] {
        atomic_output_file f("/dev/full");
        f.write("no room");
        f.commit();
      },
      error_kind::io_failure, "/dev/full", "No space left on device");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST_F(AtomicFile, UnwritableDirectory) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  fs::create_directory(dir / "ro");
  fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  const fs::path p = dir / "ro" / "out.npy";
  expect_io_error([&] { atomic_output_file f(p); }, error_kind::cant_create, p, "Permission denied");
}

// RLIMIT_FSIZE makes write() fail with EFBIG even for root, standing in for a full disk.
TEST_F(AtomicFile, WriteFailureIsIoFailureAndLeavesNothing) {
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);

  const fs::path p = dir / "big.npy";
  expect_io_error([&] { write_npy(p, make_array<double>({1000})); }, error_kind::io_failure, p,
                  "write failed");

  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(entries(dir).empty());
}

// --- same-file guard --------------------------------------------------------

using SameFile = temp_dir_test;

TEST_F(SameFile, RefusesEveryAlias) {
  const auto in = file_with("in.npy", "x");
  fs::create_directory(dir / "sub");
  fs::create_hard_link(in, dir / "hard.npy");
  fs::create_symlink(in, dir / "soft.npy");
  for (const fs::path& out : {in, dir / "sub" / ".." / "in.npy", dir / "hard.npy", dir / "soft.npy"}) {
    SCOPED_TRACE(out.string());
    try {
      refuse_same_file(in, out);
      ADD_FAILURE() << "not refused";
    } catch (const io_error& e) {
      EXPECT_EQ(e.kind(), error_kind::cant_create);
      EXPECT_EQ(std::string(e.what()), out.string() + ": output path is the same file as input " +
                                           in.string() + "; refusing to overwrite an input");
    }
  }
}

TEST_F(SameFile, SameSpellingIsOneFileEvenBeforeItExists) {
  EXPECT_TRUE(same_file(dir / "new.npy", dir / "." / "new.npy"));
  EXPECT_FALSE(same_file(dir / "new.npy", dir / "other.npy"));
}

TEST_F(SameFile, AMissingInputIsReportedAsMissingWhateverTheOutput) {
  for (const fs::path& out : {dir / "." / "new.npy", dir / "out.npy"}) {
    try {
      refuse_same_file(dir / "new.npy", out);
      ADD_FAILURE() << "not refused";
    } catch (const io_error& e) {
      EXPECT_EQ(e.kind(), error_kind::no_input) << out;
    }
  }
}

TEST_F(SameFile, AllowsDistinctFiles) {
  const auto in = file_with("in.npy", "x");
  EXPECT_NO_THROW(refuse_same_file(in, dir / "out.npy"));
  const auto other = file_with("other.npy", "x");
  EXPECT_NO_THROW(refuse_same_file(in, other));
}

}  // namespace
