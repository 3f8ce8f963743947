#pragma once
/// \file gauge/detail/stream_sharing.hpp
/// Whether the experiment being prepared on this thread may share the measuring streams another
/// experiment of this thread holds: true only while an interleaved A/B run (gauge/interleave.hpp)
/// prepares its second side, so A and B run on the same streams (hardware queues) and the stream
/// effect (gauge/core/stream_effect.hpp) cannot bias their paired ratio. Measured on an H200
/// before this existed: B on its own streams read a 10 µs kernel against itself at 0.9885.

namespace gauge::detail {

/// This thread's flag (see the file comment). Set through StreamSharingScope.
inline bool& stream_sharing_on_this_thread() {
  thread_local bool sharing = false;
  return sharing;
}

/// Sets the flag for its lifetime.
class StreamSharingScope {
 public:
  StreamSharingScope() : previous_(stream_sharing_on_this_thread()) { stream_sharing_on_this_thread() = true; }
  StreamSharingScope(const StreamSharingScope&) = delete;
  StreamSharingScope& operator=(const StreamSharingScope&) = delete;
  ~StreamSharingScope() { stream_sharing_on_this_thread() = previous_; }

 private:
  bool previous_;
};

}  // namespace gauge::detail
