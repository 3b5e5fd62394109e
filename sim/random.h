// The one random generator of a run: xoshiro256** seeded through splitmix64.
//
// Its output is the same on every platform and standard library (std::mt19937 is, but the std
// distributions are not), so a seed names the same draws everywhere. Pass it explicitly; never
// reach for std::random_device or the clock inside the model.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace acme {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& s : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      s = z ^ (z >> 31);
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Exponential with the given mean. 1 - u is exact for a 53-bit u, and std::log costs about 20
  // instructions less than std::log1p(-u); the generator's traces came out byte-identical.
  double exponential(double mean) { return -mean * std::log(1.0 - uniform()); }
  // Standard normal (Box-Muller; one draw of two uniforms per call, so the stream stays simple).
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// An Rng's uniforms drawn kBlock at a time: the same values in the same order as calling
// rng.uniform() (and exponential()) on it, for loops that draw millions: filling a block keeps
// the generator's state in registers, about 19 instructions a draw where a draw through an Rng
// kept in memory took about 24. Draw only through this while it lives.
class UniformStream {
 public:
  explicit UniformStream(Rng& rng) : rng_(rng) {}
  double uniform() {
    if (next_ == kBlock) refill();
    return block_[next_++];
  }
  double exponential(double mean) { return -mean * std::log(1.0 - uniform()); }

 private:
  static constexpr std::size_t kBlock = 256;
  void refill() {
    Rng local = rng_;
    for (double& u : block_) u = local.uniform();
    rng_ = local;
    next_ = 0;
  }
  Rng& rng_;
  std::size_t next_ = kBlock;
  std::array<double, kBlock> block_;
};

// splitmix64's output function: a well-mixed 64-bit value of `x`.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform in [0, 1) that is a pure function of its key, for draws that must not depend on the
// order of events (about 10 instructions against an Rng's 60 to seed).
inline double keyed_uniform(std::uint64_t key) { return static_cast<double>(mix64(key) >> 11) * 0x1.0p-53; }

}  // namespace acme
