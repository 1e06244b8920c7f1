// Pinocchio C++ timing and values at one state, for `cargo run --release --example
// pinocchio_anchor` (issue 26) and the test tests/model/model_pinocchio_cpp.rs.
//
// Built by tools/build_pinocchio_cpp_bench.sh against the headers and libraries of the PyPI `pin`
// wheel. Pinocchio's algorithms are instantiated in this translation unit (header-only, no
// PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION), so they are compiled with this program's flags
// (-O3 -march=native); only the URDF parser comes from the wheel's shared libraries.
//
// Usage:
//   pinocchio_cpp_bench URDF fixed|floating STATE REPS [BATCHES]
//
// STATE is a whitespace-separated text file written by the Rust side:
//   fesdj-pinocchio-state 1 NJOINTS
//   then NJOINTS records: NAME NQ NV  q[NQ]  v[NV]  a[NV]  tau[NV]
// naming every joint with a velocity (the free-flyer is `root_joint`, q = position, quaternion
// (x, y, z, w); v = local twist). A joint with NQ = 1 that Pinocchio models with nq = 2 (URDF
// `continuous`) is given as its angle and converted to (cos, sin) here.
//
// Output: one JSON object on stdout with the timings (µs per call, the median over BATCHES
// batches of REPS calls each) and the values, all vectors and matrices in the order of the STATE
// file's velocities (the caller's order), matrices row-major as lists of rows:
//   tau = rnea(q, v, a), M = crba(q) (symmetric), ddq = aba(q, v, tau),
//   dtau_dq, dtau_dv from computeRNEADerivatives(q, v, a) (derivatives w.r.t. the tangent
//   space: q ⊕ δ for the free-flyer), ddq_dq, ddq_dv, ddq_dtau (= M⁻¹, symmetric) from
//   computeABADerivatives(q, v, tau).
// Exit status: 0 success, 2 usage or data error (message on stderr).

#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/parsers/urdf.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using Model = pinocchio::Model;
using Data = pinocchio::Data;
using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

[[noreturn]] void fail(const std::string &msg) {
  std::fprintf(stderr, "pinocchio_cpp_bench: %s\n", msg.c_str());
  std::exit(2);
}

// Tells the compiler that memory may have been read: the timed calls cannot be dropped.
inline void clobber() { asm volatile("" : : : "memory"); }

struct FileJoint {
  std::string name;
  int nq = 0, nv = 0;
  std::vector<double> q, v, a, tau;
};

// The state file, mapped onto Pinocchio's vectors. `perm[k]` is Pinocchio's velocity index of
// the caller's velocity index k.
struct State {
  Vec q, v, a, tau;
  std::vector<int> perm;
};

double read_number(std::istream &in, const std::string &path, const std::string &what) {
  std::string tok;
  if (!(in >> tok)) fail(path + ": unexpected end of file reading " + what);
  char *end = nullptr;
  double x = std::strtod(tok.c_str(), &end);
  if (end == tok.c_str() || *end != '\0') fail(path + ": `" + tok + "` is not a number (" + what + ")");
  return x;
}

int read_count(std::istream &in, const std::string &path, const std::string &what) {
  double x = read_number(in, path, what);
  if (x < 0 || x != static_cast<double>(static_cast<int>(x))) fail(path + ": " + what + " is not a count");
  return static_cast<int>(x);
}

State read_state(const std::string &path, const Model &model) {
  std::ifstream in(path);
  if (!in) fail(path + ": cannot open");
  std::string magic;
  in >> magic;
  if (magic != "fesdj-pinocchio-state") fail(path + ": not a state file (missing `fesdj-pinocchio-state`)");
  if (read_count(in, path, "version") != 1) fail(path + ": unsupported version");
  int n = read_count(in, path, "joint count");
  std::vector<FileJoint> joints(n);
  for (auto &j : joints) {
    if (!(in >> j.name)) fail(path + ": unexpected end of file reading a joint name");
    const std::string ctx = "joint " + j.name;
    j.nq = read_count(in, path, ctx + " nq");
    j.nv = read_count(in, path, ctx + " nv");
    for (auto [vec, len, what] : {std::tuple{&j.q, j.nq, "q"}, std::tuple{&j.v, j.nv, "v"},
                                  std::tuple{&j.a, j.nv, "a"}, std::tuple{&j.tau, j.nv, "tau"}}) {
      for (int k = 0; k < len; ++k) vec->push_back(read_number(in, path, ctx + " " + what));
    }
  }
  State s{Vec::Zero(model.nq), Vec::Zero(model.nv), Vec::Zero(model.nv), Vec::Zero(model.nv), {}};
  std::vector<int> covered(model.nv, 0);
  for (const auto &j : joints) {
    if (!model.existJointName(j.name)) fail(path + ": Pinocchio's model has no joint `" + j.name + "`");
    const auto id = model.getJointId(j.name);
    const auto &jm = model.joints[id];
    if (jm.nv() != j.nv) fail(path + ": joint `" + j.name + "`: nv differs from Pinocchio's");
    if (jm.nq() == j.nq) {
      for (int k = 0; k < j.nq; ++k) s.q[jm.idx_q() + k] = j.q[k];
    } else if (j.nq == 1 && jm.nq() == 2 && jm.nv() == 1) {
      s.q[jm.idx_q()] = std::cos(j.q[0]);
      s.q[jm.idx_q() + 1] = std::sin(j.q[0]);
    } else {
      fail(path + ": joint `" + j.name + "`: nq differs from Pinocchio's");
    }
    for (int k = 0; k < j.nv; ++k) {
      const int iv = jm.idx_v() + k;
      s.v[iv] = j.v[k];
      s.a[iv] = j.a[k];
      s.tau[iv] = j.tau[k];
      s.perm.push_back(iv);
      covered[iv] += 1;
    }
  }
  for (int c : covered)
    if (c != 1) fail(path + ": the joints do not name every velocity of Pinocchio's model exactly once");
  return s;
}

// Median over `batches` batches of `reps` calls, in µs per call (after one warm-up batch).
template <class F> double median_us(F &&f, long reps, int batches) {
  for (long r = 0; r < reps; ++r) {
    f();
    clobber();
  }
  std::vector<double> per_call;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) {
      f();
      clobber();
    }
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / reps);
  }
  std::sort(per_call.begin(), per_call.end());
  const size_t m = per_call.size() / 2;
  return per_call.size() % 2 ? per_call[m] : 0.5 * (per_call[m - 1] + per_call[m]);
}

void symmetrise_from_upper(Mat &m) { m.triangularView<Eigen::StrictlyLower>() = m.transpose(); }

void print_vec(std::ostream &out, const Vec &x, const std::vector<int> &perm) {
  out << '[';
  for (size_t i = 0; i < perm.size(); ++i) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x[perm[i]]);
    out << (i ? "," : "") << buf;
  }
  out << ']';
}

void print_mat(std::ostream &out, const Mat &m, const std::vector<int> &perm) {
  out << '[';
  for (size_t r = 0; r < perm.size(); ++r) {
    out << (r ? "," : "") << '[';
    for (size_t c = 0; c < perm.size(); ++c) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", m(perm[r], perm[c]));
      out << (c ? "," : "") << buf;
    }
    out << ']';
  }
  out << ']';
}

std::string json_string(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 5 || argc > 6) {
    std::fprintf(stderr, "usage: %s URDF fixed|floating STATE REPS [BATCHES]\n", argv[0]);
    return 2;
  }
  const std::string urdf = argv[1], root = argv[2], state_path = argv[3];
  const long reps = std::atol(argv[4]);
  const int batches = argc > 5 ? std::atoi(argv[5]) : 11;
  if (root != "fixed" && root != "floating") fail("root must be `fixed` or `floating`, not `" + root + "`");
  if (reps <= 0 || batches <= 0) fail("REPS and BATCHES must be positive");

  Model model;
  try {
    if (root == "floating")
      pinocchio::urdf::buildModel(urdf, pinocchio::JointModelFreeFlyer(), model);
    else
      pinocchio::urdf::buildModel(urdf, model);
  } catch (const std::exception &e) {
    fail(urdf + ": " + e.what());
  }
  const State s = read_state(state_path, model);
  if (root == "floating" && std::abs(s.q.segment<4>(3).norm() - 1.0) > 1e-9)
    fail(state_path + ": the free-flyer quaternion is not a unit quaternion");

  // Values (one fresh Data per algorithm).
  Data d_rnea(model), d_crba(model), d_aba(model), d_drnea(model), d_daba(model);
  const Vec tau = pinocchio::rnea(model, d_rnea, s.q, s.v, s.a);
  Mat M = pinocchio::crba(model, d_crba, s.q);
  symmetrise_from_upper(M);
  const Vec ddq = pinocchio::aba(model, d_aba, s.q, s.v, s.tau);
  pinocchio::computeRNEADerivatives(model, d_drnea, s.q, s.v, s.a);
  pinocchio::computeABADerivatives(model, d_daba, s.q, s.v, s.tau);
  Mat minv = d_daba.Minv;
  symmetrise_from_upper(minv);

  // Timings.
  const double t_rnea = median_us([&] { pinocchio::rnea(model, d_rnea, s.q, s.v, s.a); }, reps, batches);
  const double t_crba = median_us([&] { pinocchio::crba(model, d_crba, s.q); }, reps, batches);
  const double t_crba_world = median_us(
      [&] { pinocchio::crba(model, d_crba, s.q, pinocchio::Convention::WORLD); }, reps, batches);
  const double t_aba = median_us([&] { pinocchio::aba(model, d_aba, s.q, s.v, s.tau); }, reps, batches);
  const double t_aba_world = median_us(
      [&] { pinocchio::aba(model, d_aba, s.q, s.v, s.tau, pinocchio::Convention::WORLD); }, reps, batches);
  const double t_drnea = median_us(
      [&] { pinocchio::computeRNEADerivatives(model, d_drnea, s.q, s.v, s.a); }, reps, batches);
  const double t_daba = median_us(
      [&] { pinocchio::computeABADerivatives(model, d_daba, s.q, s.v, s.tau); }, reps, batches);

  std::ostringstream out;
  out << "{\"pinocchio_version\":" << json_string(PINOCCHIO_VERSION) << ",\"robot\":" << json_string(model.name)
      << ",\"root\":" << json_string(root) << ",\"nq\":" << model.nq << ",\"nv\":" << model.nv
      << ",\"reps\":" << reps << ",\"batches\":" << batches << ",\"timing_us\":{"
      << "\"rnea\":" << t_rnea << ",\"crba\":" << t_crba << ",\"crba_world\":" << t_crba_world
      << ",\"aba\":" << t_aba << ",\"aba_world\":" << t_aba_world
      << ",\"computeRNEADerivatives\":" << t_drnea << ",\"computeABADerivatives\":" << t_daba << "}";
  out << ",\"tau\":";
  print_vec(out, tau, s.perm);
  out << ",\"M\":";
  print_mat(out, M, s.perm);
  out << ",\"ddq\":";
  print_vec(out, ddq, s.perm);
  out << ",\"dtau_dq\":";
  print_mat(out, d_drnea.dtau_dq, s.perm);
  out << ",\"dtau_dv\":";
  print_mat(out, d_drnea.dtau_dv, s.perm);
  out << ",\"ddq_dq\":";
  print_mat(out, d_daba.ddq_dq, s.perm);
  out << ",\"ddq_dv\":";
  print_mat(out, d_daba.ddq_dv, s.perm);
  out << ",\"ddq_dtau\":";
  print_mat(out, minv, s.perm);
  out << "}\n";
  std::fputs(out.str().c_str(), stdout);
  return 0;
}
