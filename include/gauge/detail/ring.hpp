#pragma once
/// \file gauge/detail/ring.hpp
/// gauge::detail::Ring: the bounded-memory queue behind gauge::Timer's pending steps, its
/// recorded region intervals and its rolling windows.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gauge::detail {

/// A ring buffer that grows by doubling when full (an allocation only while it grows) and never
/// shrinks; `operator[](i)` counts from the front.
template <class T>
class Ring {
 public:
  void reserve(std::size_t n) {
    if (n > buf_.size()) regrow(n);
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }
  T& operator[](std::size_t i) { return buf_[(head_ + i) % buf_.size()]; }
  const T& operator[](std::size_t i) const { return buf_[(head_ + i) % buf_.size()]; }
  void push_back(const T& v) {
    if (size_ == buf_.size()) regrow(std::max<std::size_t>(16, 2 * buf_.size()));
    buf_[(head_ + size_) % buf_.size()] = v;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) % buf_.size();
    --size_;
  }

 private:
  void regrow(std::size_t n) {
    std::vector<T> b(n);
    for (std::size_t i = 0; i < size_; ++i) b[i] = (*this)[i];
    buf_.swap(b);
    head_ = 0;
  }
  std::vector<T> buf_;
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace gauge::detail
