#include "engine/comm/DistributedGroup.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <torch/torch.h>
#include <unistd.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {
namespace {

using Clock = std::chrono::steady_clock;
using StorePtr = c10::intrusive_ptr<c10d::Store>;

std::vector<uint8_t> bytes(const std::string& text) { return {text.begin(), text.end()}; }
std::string text(const std::vector<uint8_t>& data) { return {data.begin(), data.end()}; }

std::mutex currentMutex;  // guards currentGroup
std::shared_ptr<DistributedGroup> currentGroup;

std::string storeAddress(const WorkerEnvironment& env) {
  return str(env.masterAddr, ":", env.masterPort);
}

/// The store as this rank sees it: the agent's (client, under its prefix) or rank 0's.
StorePtr openStore(const WorkerEnvironment& env, bool server, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(env.masterPort);
  options.isServer = server;
  options.waitWorkers = false;
  options.timeout = timeout;
  StorePtr store;
  try {
    store = c10::make_intrusive<c10d::TCPStore>(env.masterAddr, options);
  } catch (const std::exception& e) {
    if (server) {
      throw InputError(str("distributed: rank 0 cannot host the store at ", storeAddress(env),
                           " (is MASTER_PORT in use?): ", e.what()));
    }
    throw InputError(str("distributed: rank ", env.rank, " cannot reach the store at ",
                         storeAddress(env), " within ", timeout.count() / 1000, " s (",
                         env.agentStore ? "torchrun's agent hosts it" : "rank 0 hosts it",
                         "; is it running?): ", e.what()));
  }
  if (!env.keyPrefix.empty()) store = c10::make_intrusive<c10d::PrefixStore>(env.keyPrefix, store);
  return c10::make_intrusive<c10d::PrefixStore>("towerbench", store);
}

bool isLoopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

/// The local address this host reaches `host` from: a UDP socket "connected" to it (which sends
/// nothing, only picks the route) tells its source address. "" when it cannot be found.
std::string localAddressTowards(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return "";
  std::string out;
  for (const addrinfo* a = found; a != nullptr && out.empty(); a = a->ai_next) {
    const int fd = socket(a->ai_family, SOCK_DGRAM, 0);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
      char text[INET6_ADDRSTRLEN] = "";
      const void* address =
          local.ss_family == AF_INET
              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr)
              : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr);
      if (inet_ntop(local.ss_family, address, text, sizeof text) != nullptr) out = text;
    }
    close(fd);
  }
  freeaddrinfo(found);
  return out;
}

/// Where this rank's Gloo listens, which is also the address its peers are told to connect to:
/// GLOO_SOCKET_IFNAME's interface when set; loopback when the master is; otherwise the address
/// this host reaches the master from. (Gloo's own default resolves the host name, which
/// /etc/hosts often maps to a loopback address: peers on other hosts would then connect to
/// themselves and wait for the timeout.)
std::shared_ptr<gloo::transport::Device> glooDevice(const WorkerEnvironment& env) {
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname) {
    TB_LOG(Info) << "distributed: Gloo uses interface " << ifname << " (GLOO_SOCKET_IFNAME)";
    return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
  }
  if (isLoopback(env.masterAddr)) {
    return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  }
  const std::string local = localAddressTowards(env.masterAddr, env.masterPort);
  if (!local.empty() && !isLoopback(local)) {
    TB_LOG(Info) << "distributed: Gloo uses " << local << ", the address this host reaches "
                 << env.masterAddr << " from (GLOO_SOCKET_IFNAME picks an interface instead)";
    return c10d::ProcessGroupGloo::createDeviceForHostname(local);
  }
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

struct Hello {
  int worldSize = 0;
  std::string hash, name, where;
  static Hello parse(const std::string& s) {
    Hello h;
    std::istringstream in(s);
    std::string size;
    std::getline(in, size);
    h.worldSize = std::atoi(size.c_str());
    std::getline(in, h.hash);
    std::getline(in, h.name);
    std::getline(in, h.where);
    return h;
  }
  std::string line() const { return str(worldSize, "\n", hash, "\n", name, "\n", where); }
  std::string describe() const {
    return str("project \"", name, "\" (hash ", hash, ") with world size ", worldSize);
  }
};

/// Waits until `key` exists; throws InputError(timeoutMessage) at the deadline and
/// InputError(refusal) as soon as another rank published one.
std::string awaitKey(c10d::Store& store, const std::string& key, Clock::time_point deadline,
                     const std::string& timeoutMessage) {
  while (!store.check({key})) {
    if (store.check({"refused"})) throw InputError(text(store.get("refused")));
    if (Clock::now() > deadline) throw InputError(timeoutMessage);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return text(store.get(key));
}

/// How long rank 0 keeps the store up after refusing the group, for the others to read why.
constexpr std::chrono::milliseconds kVerdictGrace{10000};

/// Rank 0, after a refusal: waits until every rank that said hello has read the verdict (set
/// "ack/<rank>"), or `grace` passed. Store errors end the wait.
void awaitAcknowledgements(c10d::Store& store, int size, std::chrono::milliseconds grace) {
  const auto deadline = Clock::now() + grace;
  try {
    for (int r = 1; r < size; ++r) {
      while (store.check({str("hello/", r)}) && !store.check({str("ack/", r)}) &&
             Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  } catch (const std::exception&) {
  }
}

// Note [LibTorch's store threads]: every c10d::TCPStore client of LibTorch 1.13 has a thread of
// its own (TCPStoreWorkerDaemon, for watchKey) that lets std::system_error out when the store's
// host resets the connection: a rank SIGKILLed made about 1 in 30 of its peers abort here
// (status 134, "terminate called after throwing ... Connection reset by peer") at once, before
// the diagnosis (tests/app/test_Faults, scripts/faults.sh). Nothing can catch it on that thread,
// so the rank's terminate handler ends that one case as the diagnosis would have: it names the
// store's host, and the rank exits with status 1, as for any distributed failure. Any other
// termination goes to the previous handler.
std::terminate_handler previousTerminate = nullptr;
std::string storeResetMessage;  // set once, before the first store exists

[[noreturn]] void onTerminate() {
  if (const std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (const std::system_error& e) {
      const int code = e.code().value();
      if (e.code().category() == std::system_category() &&
          (code == ECONNRESET || code == EPIPE || code == ECONNABORTED)) {
        const std::string message = storeResetMessage + " (" + e.what() + ")\n";
        [[maybe_unused]] const ssize_t written = ::write(2, message.data(), message.size());
        ::_exit(1);
      }
    } catch (...) {
    }
  }
  if (previousTerminate != nullptr) previousTerminate();
  std::abort();
}

class GlooPending : public PendingCollective {
 public:
  explicit GlooPending(c10::intrusive_ptr<c10d::Work> work) : work_(std::move(work)) {}
  void wait() override { work_->wait(); }
  void whenDone(std::function<void()> done) override {
    work_->getFuture()->addCallback([done = std::move(done)](c10::ivalue::Future&) { done(); });
  }

 private:
  c10::intrusive_ptr<c10d::Work> work_;
};

}  // namespace

struct DistributedGroup::State {
  StorePtr store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
  std::thread heartbeat;
  std::mutex mutex;  // guards stop; paired with wake
  std::condition_variable wake;
  bool stop = false;

  void stopHeartbeat() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    wake.notify_all();
    if (heartbeat.joinable()) heartbeat.join();
  }
};

std::string stableHash(const std::string& input) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : input) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

DistributedGroup::DistributedGroup(WorkerEnvironment env, DistributedOptions options)
    : env_(std::move(env)), options_(std::move(options)), state_(std::make_unique<State>()) {}

DistributedGroup::~DistributedGroup() { state_->stopHeartbeat(); }

std::shared_ptr<DistributedGroup> DistributedGroup::current() {
  std::lock_guard<std::mutex> lock(currentMutex);
  return currentGroup;
}

std::shared_ptr<DistributedGroup> DistributedGroup::join(const WorkerEnvironment& env,
                                                         const DistributedOptions& options) {
  {
    std::lock_guard<std::mutex> lock(currentMutex);
    TB_CHECK(currentGroup == nullptr, "this process already joined a distributed group");
  }
  // Gloo writes to its peers with writev, which raises SIGPIPE once a peer is gone: that would
  // end this rank at once, status 141 and no word, instead of the diagnosis naming the peer
  // (found by test_Faults: a rank continued after SIGSTOP, rank 0 gone). PyTorch's ranks run
  // under Python, which ignores SIGPIPE; so do these.
  std::signal(SIGPIPE, SIG_IGN);
  storeResetMessage = str(
      "distributed: rank ", env.rank, " ends: ",
      env.agentStore ? str("torchrun's store at ", storeAddress(env), " is gone")
                     : str("rank 0 died (the store it hosted at ", storeAddress(env), " is gone)"),
      "; LibTorch's thread for the store lost its connection");
  if (previousTerminate == nullptr) previousTerminate = std::set_terminate(onTerminate);
  std::shared_ptr<DistributedGroup> group(new DistributedGroup(env, options));
  State& state = *group->state_;
  const int rank = env.rank;
  const int size = env.worldSize;
  const auto deadline = Clock::now() + options.timeout;
  state.store = openStore(env, rank == 0 && !env.agentStore, options.timeout);
  c10d::Store& store = *state.store;

  // Note [Distributed faults]: refuse a rank that runs another project or world size before
  // Gloo would wait for ranks that never come.
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  const Hello mine{size, options.projectHash, options.projectName,
                   str(host, " pid ", static_cast<long>(getpid()))};
  store.set(str("hello/", rank), bytes(mine.line()));
  const std::string seconds = str(options.timeout.count() / 1000.0, " s");
  if (rank == 0) {
    std::string verdict = "ok";
    try {
      for (int r = 1; r < size; ++r) {
        const Hello other = Hello::parse(
            awaitKey(store, str("hello/", r), deadline,
                     str("distributed: rank ", r, " of ", size, " did not join within ", seconds,
                         " (store ", storeAddress(env), ")")));
        if (other.worldSize != size || other.hash != mine.hash) {
          throw InputError(str("distributed: rank ", r, " (", other.where, ") is refused: it runs ",
                               other.describe(), ", rank 0 runs ", mine.describe(),
                               "; every rank must run the same project with the same options"));
        }
      }
    } catch (const InputError& e) {
      verdict = e.what();
      store.set("verdict", bytes(verdict));
      // Rank 0 hosts the store: leaving at once would cut off a rank still reading its own
      // verdict (it would report a broken pipe instead of the refusal).
      awaitAcknowledgements(store, size, std::min(options.timeout, kVerdictGrace));
      throw;
    }
    store.set("verdict", bytes(verdict));
  } else {
    // Tells rank 0 this rank has read why it cannot join, so that rank 0 may stop hosting the
    // store (awaitAcknowledgements).
    auto acknowledge = [&] {
      try {
        store.set(str("ack/", rank), bytes("refused"));
      } catch (const std::exception&) {
      }
    };
    try {
      const Hello zero = Hello::parse(awaitKey(store, "hello/0", deadline,
                                               str("distributed: rank 0 did not join within ",
                                                   seconds, " (store ", storeAddress(env), ")")));
      if (zero.worldSize != size || zero.hash != mine.hash) {
        const std::string refusal =
            str("distributed: rank ", rank, " (", mine.where, ") is refused: it runs ",
                mine.describe(), ", rank 0 runs ", zero.describe(),
                "; every rank must run the same project with the same options");
        store.set("refused", bytes(refusal));
        throw InputError(refusal);
      }
      const std::string verdict =
          awaitKey(store, "verdict", deadline,
                   str("distributed: rank 0 did not confirm the group within ", seconds));
      if (verdict != "ok") throw InputError(verdict);
    } catch (const InputError&) {
      acknowledge();
      throw;
    } catch (const std::exception& e) {
      throw InputError(str("distributed: rank ", rank, " lost the store at ", storeAddress(env),
                           " while joining (", env.agentStore ? "torchrun's agent" : "rank 0",
                           " hosts it and has ended; its output says why): ", e.what()));
    }
  }

  auto glooOptions = c10d::ProcessGroupGloo::Options::create(options.timeout);
  glooOptions->devices.push_back(glooDevice(env));
  glooOptions->threads = 2;
  try {
    state.gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(
        c10::make_intrusive<c10d::PrefixStore>("gloo", state.store), rank, size, glooOptions);
  } catch (const std::exception& e) {
    throw InputError(
        str("distributed: rank ", rank, " could not connect to its peers: ", e.what()));
  }

  // The heartbeat has its own connection: a TCPStore client is not shared between threads.
  DistributedGroup* self = group.get();
  state.heartbeat = std::thread([self, &state] {
    StorePtr beatStore;
    try {
      beatStore = openStore(self->env_, false, self->options_.timeout);
    } catch (const std::exception&) {
      return;
    }
    int64_t count = 0;
    std::unique_lock<std::mutex> lock(state.mutex);
    while (!state.stop) {
      lock.unlock();
      try {
        beatStore->set(str("beat/", self->rank()),
                       bytes(str(++count, " ", self->progress_.load())));
      } catch (const std::exception&) {
        return;  // the store is gone; the engine thread finds out at its next collective
      }
      lock.lock();
      state.wake.wait_for(lock, self->options_.heartbeat, [&] { return state.stop; });
    }
  });
  {
    std::lock_guard<std::mutex> lock(currentMutex);
    currentGroup = group;
  }
  TB_LOG(Info) << "distributed: joined as " << env.describe() << ", Gloo over " << storeAddress(env)
               << ", timeout " << seconds;
  return group;
}

void DistributedGroup::publish(const std::string& key, const std::string& value) {
  state_->store->set("value/" + key, bytes(value));
}

std::string DistributedGroup::receive(const std::string& key) {
  return awaitKey(*state_->store, "value/" + key, Clock::now() + options_.timeout,
                  str("distributed: rank 0 did not publish \"", key, "\" within ",
                      options_.timeout.count() / 1000.0, " s"));
}

std::unique_ptr<PendingCollective> DistributedGroup::allReduceSum(torch::Tensor tensor) {
  std::vector<at::Tensor> tensors{std::move(tensor)};
  return std::make_unique<GlooPending>(state_->gloo->allreduce(tensors));
}

void DistributedGroup::broadcast(std::vector<torch::Tensor> tensors, int root) {
  if (tensors.empty()) return;
  std::vector<torch::Tensor> flat;
  for (const auto& t : tensors) flat.push_back(t.detach().reshape({-1}).to(torch::kFloat64));
  std::vector<at::Tensor> buffer{torch::cat(flat)};
  c10d::BroadcastOptions options;
  options.rootRank = root;
  state_->gloo->broadcast(buffer, options)->wait();
  torch::NoGradGuard noGrad;
  int64_t offset = 0;
  for (auto& t : tensors) {
    const int64_t n = t.numel();
    t.copy_(buffer[0].narrow(0, offset, n).view(t.sizes()));
    offset += n;
  }
}

void DistributedGroup::barrier() { state_->gloo->barrier()->wait(); }

void DistributedGroup::reportFailure(const std::string& message) {
  try {
    state_->store->set(str("failed/", rank()), bytes(message));
  } catch (const std::exception&) {
  }
}

namespace {

/// What diagnose asks the store, on a thread of its own: a published failure, a heartbeat that
/// stopped, a rank behind. Takes copies only: it may outlive the group (Note [A store that stops
/// answering]). `answered()` is called once the store has answered a first question.
std::string askTheStore(const WorkerEnvironment& env, int self, int worldSize,
                        std::chrono::milliseconds heartbeat, int64_t progress,
                        const std::function<void()>& answered) {
  StorePtr store;
  try {
    store = openStore(env, false, std::chrono::milliseconds(3000));
  } catch (const std::exception&) {
    if (env.agentStore) return str("torchrun's store at ", storeAddress(env), " is gone");
    return str("rank 0 died (the store it hosted at ", storeAddress(env), " is gone)");
  }
  try {
    for (int r = 0; r < worldSize; ++r) {
      if (r != self && store->check({str("failed/", r)})) {
        return str("rank ", r, " failed: ", text(store->get(str("failed/", r))));
      }
    }
    answered();
    auto beats = [&] {
      std::map<int, std::pair<int64_t, int64_t>> out;  // rank -> (count, step)
      for (int r = 0; r < worldSize; ++r) {
        if (r == self) continue;
        std::pair<int64_t, int64_t> beat{-1, -1};
        if (store->check({str("beat/", r)})) {
          std::istringstream in(text(store->get(str("beat/", r))));
          in >> beat.first >> beat.second;
        }
        out[r] = beat;
      }
      return out;
    };
    const auto before = beats();
    std::this_thread::sleep_for(heartbeat * 5 / 2);
    const auto after = beats();
    for (const auto& [r, beat] : after) {
      if (beat.first == before.at(r).first) {
        // A rank that published its failure meanwhile says more than its silence.
        if (store->check({str("failed/", r)})) {
          return str("rank ", r, " failed: ", text(store->get(str("failed/", r))));
        }
        return str("rank ", r, " died or hangs (its heartbeat stopped",
                   beat.second >= 0 ? str(" at global step ", beat.second) : std::string(), ")");
      }
    }
    for (const auto& [r, beat] : after) {
      if (beat.second < progress) {
        return str("rank ", r, " is stuck at global step ", beat.second, " (rank ", self, " is at ",
                   progress, ")");
      }
    }
  } catch (const std::exception&) {
    return str("rank 0 died (the store it hosted at ", storeAddress(env), " stopped answering)");
  }
  return {};
}

/// How long the store may take to answer diagnose's first question (3 s of them to connect).
constexpr std::chrono::milliseconds kFirstAnswer{4000};

}  // namespace

std::string DistributedGroup::diagnose(const std::string& cause) {
  // Note [A store that stops answering]: a TCPStore client waits for an answer without limit
  // (LibTorch 1.13 sets no receive timeout for check and get), and a store host that is stopped
  // (SIGSTOP, a machine that hangs) keeps its connections open, so asking it would never
  // return: the other ranks would wait forever. The questions go to a thread of their own;
  // when the store has not answered the first within kFirstAnswer, or the rest in the time
  // they need, its host is named, and the thread is left to end with the process.
  struct Shared {
    std::mutex mutex;  // guards answered and verdict; paired with changed
    std::condition_variable changed;
    bool answered = false;
    std::optional<std::string> verdict;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, env = env_, self = rank(), size = worldSize(),
               heartbeat = options_.heartbeat, progress = progress_.load()] {
    const auto answered = [&] {
      std::lock_guard<std::mutex> lock(shared->mutex);
      shared->answered = true;
      shared->changed.notify_all();
    };
    std::string verdict = askTheStore(env, self, size, heartbeat, progress, answered);
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->verdict = std::move(verdict);
    shared->changed.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(shared->mutex);
  const bool done = shared->changed.wait_for(lock, kFirstAnswer, [&] {
    return shared->answered || shared->verdict.has_value();
  }) && shared->changed.wait_for(lock, options_.heartbeat * 5 / 2 + kFirstAnswer, [&] {
    return shared->verdict.has_value();
  });
  if (!done) {
    if (env_.agentStore) {
      return str("torchrun's store at ", storeAddress(env_), " stopped answering");
    }
    return str("rank 0 died or hangs (the store it hosts at ", storeAddress(env_),
               " stopped answering)");
  }
  if (shared->verdict->empty()) return str("a peer failed (", cause, ")");
  return *shared->verdict;
}

void DistributedGroup::fail(const std::exception& cause, const std::string& during) {
  failed_ = true;
  const std::string message = str("distributed: ", diagnose(cause.what()), "; rank ", rank(),
                                  " stops during ", during, " (", cause.what(), ")");
  reportFailure(message);
  state_->stopHeartbeat();
  throw DistributedError(message);
}

void DistributedGroup::finish() {
  state_->stopHeartbeat();
  if (failed_) return;
  try {
    barrier();
  } catch (const std::exception& e) {
    TB_LOG(Warning) << "distributed: the final barrier failed: " << e.what();
  }
}

}  // namespace tbench
