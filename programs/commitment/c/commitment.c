/*
 * Commitment program: one account per owner holding the latest Merkle root of that owner's
 * memory log, its memory count and a nonce that advances by one on every commit (one owner per
 * `commit`, several per `commit_many`); the anchor configuration naming the only key besides the
 * owner that may create a commitment account; and staking: a vault per owner holding lamports in
 * lots that mature after a lock period fixed once per deployment by the program's upgrade
 * authority (the stake configuration account).
 *
 * Protocol: docs/protocol.md §7 (commitment PDA, commit rules, account data layout), §11
 * (staking). Wire format: Anchor 0.30+ (instruction discriminator sha256("global:<name>")[..8],
 * Borsh arguments, account discriminator sha256("account:<Name>")[..8]); the hand-written IDL
 * in ../idl/commitment.json and ../src/stake.ts describe exactly this file.
 * ABI: Solana SBPF v0 with the aligned input serialization of the BPF Upgradeable Loader and
 * the C syscall interface (sol_invoke_signed_c & co.), as in the Solana C SDK (sdk/bpf/c).
 *
 * Build constraints (see ../README.md): clang -target bpf -mcpu=v1, no libc, no writable
 * globals, at most 5 arguments per call and 512 bytes of stack per function, hence the
 * noinline instruction handlers.
 */

typedef unsigned char u8;
typedef unsigned long long u64;
typedef long long i64;

#define U64_MAX 0xffffffffffffffffULL
#define I64_MAX 0x7fffffffffffffffLL

/* Custom error codes, returned as the instruction's Custom(n) error. Keep in sync with the IDL. */
#define ERR_UNAUTHORIZED 6000
#define ERR_COUNT_DECREASED 6001
#define ERR_NONCE_MISMATCH 6002
#define ERR_INVALID_ACCOUNT 6003
#define ERR_INVALID_INSTRUCTION 6004
#define ERR_ALREADY_INITIALIZED 6005
#define ERR_NOT_ENOUGH_ACCOUNTS 6006
#define ERR_NONCE_OVERFLOW 6007
#define ERR_RENT_UNAVAILABLE 6008
#define ERR_NOTHING_MATURED 6009
#define ERR_TOO_MANY_LOTS 6010
#define ERR_WRONG_OWNER 6011
#define ERR_ZERO_AMOUNT 6012
#define ERR_ARITHMETIC_OVERFLOW 6013
#define ERR_INVALID_LOCK_PERIOD 6014
#define ERR_STAKE_NOT_CONFIGURED 6015
#define ERR_ROOT_MISMATCH 6016
#define ERR_NOTHING_TO_SWEEP 6017

/* Commitment account layout (121 bytes). */
#define OFF_DISCRIMINATOR 0
#define OFF_AUTHORITY 8
#define OFF_OWNER 40
#define OFF_ROOT 72
#define OFF_MEMORY_COUNT 104
#define OFF_NONCE 112
#define OFF_BUMP 120
#define COMMITMENT_SIZE 121

/* Stake configuration account layout (49 bytes), PDA ["stake_config"]. */
#define CONFIG_OFF_AUTHORITY 8
#define CONFIG_OFF_LOCK_PERIOD 40
#define CONFIG_OFF_BUMP 48
#define CONFIG_SIZE 49

/* Anchor configuration account layout (41 bytes), PDA ["anchor_config"]. */
#define ANCHOR_CONFIG_OFF_AUTHORITY 8
#define ANCHOR_CONFIG_OFF_BUMP 40
#define ANCHOR_CONFIG_SIZE 41

/* Checkpoint log account layout (89 bytes), PDA ["checkpoint-log", authority]. */
#define LOG_OFF_AUTHORITY 8
#define LOG_OFF_ROOT 40
#define LOG_OFF_SIZE 72
#define LOG_OFF_NONCE 80
#define LOG_OFF_BUMP 88
#define CHECKPOINT_LOG_SIZE 89

/* Stake vault account layout (560 bytes), PDA ["vault", owner]: header, then MAX_LOTS lots of
 * { amount u64, unlock_at i64 } (the first lot_count in deposit order, the rest zero). */
#define VAULT_OFF_OWNER 8
#define VAULT_OFF_BUMP 40
#define VAULT_OFF_LOT_COUNT 41
#define VAULT_OFF_LOTS 48
#define MAX_LOTS 32
#define VAULT_SIZE (VAULT_OFF_LOTS + MAX_LOTS * 16)

/* Longest accepted lock period: 10 × 365 days, in seconds. */
#define MAX_LOCK_PERIOD 315360000ULL

/* Instruction data sizes: discriminator plus Borsh arguments. */
#define INITIALIZE_DATA_LEN (8 + 32)
#define COMMIT_DATA_LEN (8 + 32 + 8 + 8)
#define INITIALIZE_STAKE_CONFIG_DATA_LEN (8 + 8)
#define STAKE_DATA_LEN (8 + 8)
#define UNSTAKE_DATA_LEN 8
#define SET_ANCHOR_CONFIG_DATA_LEN (8 + 32)
#define SET_AUTHORITY_DATA_LEN (8 + 32)
#define SWEEP_VAULT_DATA_LEN 8
#define INITIALIZE_CHECKPOINT_LOG_DATA_LEN 8
#define COMMIT_CHECKPOINT_LOG_DATA_LEN (8 + 32 + 8 + 8)
/* commit_many: discriminator, Borsh Vec length u32, then entries of root || count || nonce. */
#define COMMIT_MANY_HEADER_LEN (8 + 4)
#define COMMIT_ENTRY_LEN (32 + 8 + 8)

/* UpgradeableLoaderState::ProgramData (bincode): u32 tag 3, slot u64, Option<Pubkey> upgrade
 * authority (tag byte at 12, key at 13..45), then the ELF. */
#define PROGRAM_DATA_TAG 3
#define PROGRAM_DATA_OFF_AUTHORITY_TAG 12
#define PROGRAM_DATA_OFF_AUTHORITY 13
#define PROGRAM_DATA_METADATA_SIZE 45

/* Input serialization constants (BPF Upgradeable Loader, aligned ABI). */
#define MAX_PARSED_ACCOUNTS 4
#define NON_DUP_MARKER 0xff
#define MAX_PERMITTED_DATA_INCREASE 10240

/* solana_rent::ACCOUNT_STORAGE_OVERHEAD */
#define ACCOUNT_STORAGE_OVERHEAD 128

typedef struct {
  u8 x[32];
} SolPubkey;

/* Layouts below are the C SDK's (sdk/bpf/c/inc/sol/pubkey.h, cpi.h); the runtime reads them. */
typedef struct {
  SolPubkey *key;
  u64 *lamports;
  u64 data_len;
  u8 *data;
  SolPubkey *owner;
  u64 rent_epoch;
  u8 is_signer;
  u8 is_writable;
  u8 executable;
} SolAccountInfo;

typedef struct {
  SolPubkey *pubkey;
  u8 is_writable;
  u8 is_signer;
} SolAccountMeta;

typedef struct {
  const SolPubkey *program_id;
  SolAccountMeta *accounts;
  u64 account_len;
  const u8 *data;
  u64 data_len;
} SolInstruction;

typedef struct {
  const u8 *addr;
  u64 len;
} SolSignerSeed;

typedef struct {
  const SolSignerSeed *addr;
  u64 len;
} SolSignerSeeds;

extern void sol_log_(const char *message, u64 len);
extern void sol_log_64_(u64 arg1, u64 arg2, u64 arg3, u64 arg4, u64 arg5);
extern u64 sol_try_find_program_address(const SolSignerSeed *seeds, u64 seeds_len,
                                        const SolPubkey *program_id, SolPubkey *address,
                                        u8 *bump_seed);
extern u64 sol_create_program_address(const SolSignerSeed *seeds, u64 seeds_len,
                                      const SolPubkey *program_id, SolPubkey *address);
extern u64 sol_invoke_signed_c(const SolInstruction *instruction,
                               const SolAccountInfo *account_infos, u64 account_infos_len,
                               const SolSignerSeeds *signers_seeds, u64 signers_seeds_len);
extern u64 sol_get_rent_sysvar(u8 *rent);
extern u64 sol_get_clock_sysvar(u64 *clock);

#define LOG(literal) sol_log_((literal), sizeof(literal) - 1)

static const u8 INITIALIZE_DISCRIMINATOR[8] = {0xaf, 0xaf, 0x6d, 0x1f, 0x0d, 0x98, 0x9b, 0xed};
static const u8 COMMIT_DISCRIMINATOR[8] = {0xdf, 0x8c, 0x8e, 0xa5, 0xe5, 0xd0, 0x9c, 0x4a};
static const u8 ACCOUNT_DISCRIMINATOR[8] = {0x3d, 0x70, 0x81, 0x80, 0x18, 0x93, 0x4d, 0x57};
static const u8 SEED_PREFIX[10] = {'c', 'o', 'm', 'm', 'i', 't', 'm', 'e', 'n', 't'};
static const u8 INITIALIZE_STAKE_CONFIG_DISCRIMINATOR[8] = {0xc4, 0x23, 0x83, 0xae,
                                                            0xac, 0x28, 0xe9, 0x13};
static const u8 STAKE_DISCRIMINATOR[8] = {0xce, 0xb0, 0xca, 0x12, 0xc8, 0xd1, 0xb3, 0x6c};
static const u8 UNSTAKE_DISCRIMINATOR[8] = {0x5a, 0x5f, 0x6b, 0x2a, 0xcd, 0x7c, 0x32, 0xe1};
static const u8 CONFIG_DISCRIMINATOR[8] = {0xee, 0x97, 0x2b, 0x03, 0x0b, 0x97, 0x3f, 0xb0};
static const u8 VAULT_DISCRIMINATOR[8] = {0xc0, 0x70, 0x41, 0x7d, 0x81, 0x97, 0xad, 0xe2};
static const u8 CONFIG_SEED[12] = {'s', 't', 'a', 'k', 'e', '_', 'c', 'o', 'n', 'f', 'i', 'g'};
static const u8 VAULT_SEED[5] = {'v', 'a', 'u', 'l', 't'};
static const u8 COMMIT_MANY_DISCRIMINATOR[8] = {0xc9, 0x24, 0x6c, 0xfd, 0x9b, 0x09, 0xac, 0x8a};
static const u8 SET_AUTHORITY_DISCRIMINATOR[8] = {0x85, 0xfa, 0x25, 0x15, 0x6e, 0xa3, 0x1a, 0x79};
static const u8 SET_ANCHOR_CONFIG_DISCRIMINATOR[8] = {0x14, 0x00, 0xc5, 0xeb,
                                                      0x5f, 0xc6, 0x82, 0x0c};
static const u8 SWEEP_VAULT_DISCRIMINATOR[8] = {0x89, 0x5c, 0x09, 0x01, 0x8c, 0xed, 0xd6, 0x8c};
static const u8 ANCHOR_CONFIG_DISCRIMINATOR[8] = {0xb9, 0x1e, 0x3a, 0x35,
                                                  0x79, 0x9e, 0xd4, 0x8e};
static const u8 INITIALIZE_CHECKPOINT_LOG_DISCRIMINATOR[8] = {0x68, 0x04, 0xc6, 0x9b,
                                                             0xcb, 0xbe, 0x54, 0x0b};
static const u8 COMMIT_CHECKPOINT_LOG_DISCRIMINATOR[8] = {0xf1, 0x9b, 0x45, 0x9e,
                                                         0xda, 0x43, 0xdf, 0x4b};
static const u8 CHECKPOINT_LOG_DISCRIMINATOR[8] = {0x59, 0xd8, 0x37, 0xaf, 0x3e, 0x0d, 0x65, 0xd7};
static const u8 CHECKPOINT_LOG_SEED[14] = {'c', 'h', 'e', 'c', 'k', 'p', 'o',
                                           'i', 'n', 't', '-', 'l', 'o', 'g'};
static const u8 ANCHOR_CONFIG_SEED[13] = {'a', 'n', 'c', 'h', 'o', 'r', '_',
                                          'c', 'o', 'n', 'f', 'i', 'g'};
/* BPFLoaderUpgradeab1e11111111111111111111111 */
static const SolPubkey UPGRADEABLE_LOADER_ID = {
    {0x02, 0xa8, 0xf6, 0x91, 0x4e, 0x88, 0xa1, 0xb0, 0xe2, 0x10, 0x15, 0x3e, 0xf7, 0x63, 0xae, 0x2b,
     0x00, 0xc2, 0xb9, 0x3d, 0x16, 0xc1, 0x24, 0xd2, 0xc0, 0x53, 0x7a, 0x10, 0x04, 0x80, 0x00, 0x00}};

/* System program instruction tags (bincode u32 LE). */
#define SYSTEM_CREATE_ACCOUNT 0
#define SYSTEM_ASSIGN 1
#define SYSTEM_TRANSFER 2
#define SYSTEM_ALLOCATE 8

/* The parsed program input. Only the first MAX_PARSED_ACCOUNTS accounts are kept. */
typedef struct {
  SolAccountInfo accounts[MAX_PARSED_ACCOUNTS];
  u64 account_count;
  u8 *first_account; /* the serialized accounts, right after the account count */
  const u8 *data;
  u64 data_len;
  const SolPubkey *program_id;
} Context;

static int bytes_equal(const u8 *a, const u8 *b, u64 len) {
  for (u64 i = 0; i < len; i++) {
    if (a[i] != b[i]) {
      return 0;
    }
  }
  return 1;
}

static int bytes_zero(const u8 *a, u64 len) {
  for (u64 i = 0; i < len; i++) {
    if (a[i] != 0) {
      return 0;
    }
  }
  return 1;
}

static void bytes_copy(u8 *dst, const u8 *src, u64 len) {
  for (u64 i = 0; i < len; i++) {
    dst[i] = src[i];
  }
}

static u64 read_u64_le(const u8 *p) {
  u64 v = 0;
  for (int i = 7; i >= 0; i--) {
    v = (v << 8) | p[i];
  }
  return v;
}

static void write_u32_le(u8 *p, u64 v) {
  for (int i = 0; i < 4; i++) {
    p[i] = (u8)(v >> (8 * i));
  }
}

static void write_u64_le(u8 *p, u64 v) {
  for (int i = 0; i < 8; i++) {
    p[i] = (u8)(v >> (8 * i));
  }
}

static int key_equal(const SolPubkey *a, const SolPubkey *b) {
  return bytes_equal(a->x, b->x, 32);
}

/*
 * Parses one serialized account at `p` (aligned input serialization): either [dup_index,
 * 7 padding], then *dup is the index of the account it repeats, or [0xff, is_signer,
 * is_writable, executable, 4 padding, key(32), owner(32), lamports u64, data_len u64, data,
 * 10240 bytes of growth room, padding to 8, rent_epoch u64], then *dup is NON_DUP_MARKER and
 * *info points into the input. Returns the position of the next account.
 */
static u8 *parse_account(u8 *p, SolAccountInfo *info, u8 *dup) {
  *dup = *p;
  if (*dup != NON_DUP_MARKER) {
    return p + 8;
  }
  info->is_signer = p[1];
  info->is_writable = p[2];
  info->executable = p[3];
  p += 8;
  info->key = (SolPubkey *)p;
  p += 32;
  info->owner = (SolPubkey *)p;
  p += 32;
  info->lamports = (u64 *)p;
  p += sizeof(u64);
  info->data_len = *(u64 *)p;
  p += sizeof(u64);
  info->data = p;
  p += info->data_len + MAX_PERMITTED_DATA_INCREASE;
  p = (u8 *)(((u64)p + 7) & ~(u64)7);
  info->rent_epoch = *(u64 *)p;
  return p + sizeof(u64);
}

/* Field-by-field copy (a struct assignment could become a memcpy call, which BPF lacks). */
static void copy_info(SolAccountInfo *dst, const SolAccountInfo *src) {
  dst->key = src->key;
  dst->lamports = src->lamports;
  dst->data_len = src->data_len;
  dst->data = src->data;
  dst->owner = src->owner;
  dst->rent_epoch = src->rent_epoch;
  dst->is_signer = src->is_signer;
  dst->is_writable = src->is_writable;
  dst->executable = src->executable;
}

/*
 * Parses the aligned input serialization: u64 account count, the accounts (parse_account),
 * then u64 instruction data length, the data and the program id. Only the first
 * MAX_PARSED_ACCOUNTS accounts are kept; a duplicate copies the account it repeats.
 */
static void deserialize(u8 *input, Context *ctx) {
  u8 *p = input;
  u64 count = *(u64 *)p;
  p += sizeof(u64);
  ctx->account_count = count;
  ctx->first_account = p;
  for (u64 i = 0; i < count; i++) {
    SolAccountInfo info;
    u8 dup = NON_DUP_MARKER;
    p = parse_account(p, &info, &dup);
    if (i < MAX_PARSED_ACCOUNTS) {
      copy_info(&ctx->accounts[i], dup != NON_DUP_MARKER ? &ctx->accounts[dup] : &info);
    }
  }
  ctx->data_len = *(u64 *)p;
  p += sizeof(u64);
  ctx->data = p;
  p += ctx->data_len;
  ctx->program_id = (const SolPubkey *)p;
}

/* Number of significant bits of v (0 for v == 0). */
static u64 bit_length(u64 v) {
  u64 n = 0;
  while (v != 0) {
    n++;
    v >>= 1;
  }
  return n;
}

/*
 * solana_rent::Rent::minimum_balance(data_len) =
 *   (((ACCOUNT_STORAGE_OVERHEAD + data_len) * lamports_per_byte_year) as f64
 *      * exemption_threshold) as u64
 * computed without floating point: the f64 threshold is decoded from its IEEE 754 bits, the
 * exact product is rounded to 53 significant bits (round half to even, as the f64 multiply
 * does), then truncated (Rust `as u64`, saturating). Returns 0 and writes *out, or an error code.
 */
static __attribute__((noinline)) u64 rent_minimum_balance(u64 data_len, u64 *out) {
  u8 rent[24]; /* lamports_per_byte_year u64, exemption_threshold f64, burn_percent u8, pad */
  if (sol_get_rent_sysvar(rent) != 0) {
    return ERR_RENT_UNAVAILABLE;
  }
  u64 per_byte_year = read_u64_le(rent);
  u64 bits = read_u64_le(rent + 8);
  u64 bytes = ACCOUNT_STORAGE_OVERHEAD + data_len;
  /* Factors of a and b significant bits have a product in [2^(a+b-2), 2^(a+b)): when a + b > 54
   * it is at least 2^53 (refused below anyway), otherwise it fits in 64 bits. Written without the
   * `U64_MAX / b` idiom, which clang turns into a 128-bit multiply that BPF cannot call. */
  if (bit_length(bytes) + bit_length(per_byte_year) > 54) {
    return ERR_RENT_UNAVAILABLE;
  }
  u64 x = bytes * per_byte_year;
  if (x >= (1ULL << 53)) {
    return ERR_RENT_UNAVAILABLE; /* x as f64 would round; no real cluster comes near this */
  }
  u64 biased_exponent = (bits >> 52) & 0x7ff;
  u64 fraction = bits & ((1ULL << 52) - 1);
  if (biased_exponent == 0x7ff) {
    return ERR_RENT_UNAVAILABLE; /* infinity or NaN */
  }
  if ((bits >> 63) != 0 || x == 0 || (biased_exponent == 0 && fraction == 0)) {
    *out = 0;
    return 0;
  }
  u64 mantissa = biased_exponent == 0 ? fraction : (fraction | (1ULL << 52));
  i64 exponent = biased_exponent == 0 ? -1074 : (i64)biased_exponent - 1075;

  /* 128-bit product x * mantissa from 32-bit limbs (both factors are below 2^53). */
  u64 mask = 0xffffffffULL;
  u64 p0 = (x & mask) * (mantissa & mask);
  u64 p1 = (x & mask) * (mantissa >> 32);
  u64 p2 = (x >> 32) * (mantissa & mask);
  u64 p3 = (x >> 32) * (mantissa >> 32);
  u64 mid = (p0 >> 32) + (p1 & mask) + (p2 & mask);
  u64 lo = (p0 & mask) | (mid << 32);
  u64 hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);

  u64 length = hi != 0 ? 64 + bit_length(hi) : bit_length(lo);
  u64 q = lo;
  if (length > 53) {
    u64 k = length - 53; /* 1..53 because the product is below 2^106 */
    u64 rem = lo & ((1ULL << k) - 1);
    u64 half = 1ULL << (k - 1);
    q = (lo >> k) | (hi << (64 - k));
    if (rem > half || (rem == half && (q & 1) != 0)) {
      q++;
    }
    exponent += (i64)k;
  }
  if (exponent >= 0) {
    if (exponent >= 64 || q > (U64_MAX >> exponent)) {
      *out = U64_MAX;
    } else {
      *out = q << exponent;
    }
  } else {
    i64 shift = -exponent;
    *out = shift >= 64 ? 0 : q >> shift;
  }
  return 0;
}

/*
 * A system-program call made by a handler whose accounts start [payer, target, ...]: the payer
 * signed the transaction; the target is a PDA of this program that signs through `seeds`
 * (NULL: the target does not sign). The system program is ctx->accounts[system_index]; the
 * account infos passed are ctx->accounts[0..=system_index].
 */
typedef struct {
  const SolSignerSeeds *seeds;
  u64 system_index;
} SystemCall;

/*
 * Invokes the system program with `data`. The account metas are [payer, target] (both
 * writable; the payer signs, the target signs when `call->seeds` is set) or, when
 * `target_only` is set, [target].
 */
static __attribute__((noinline)) u64 invoke_system(Context *ctx, const SystemCall *call,
                                                   const u8 *data, u64 data_len,
                                                   int target_only) {
  SolAccountMeta metas[2];
  metas[0].pubkey = ctx->accounts[0].key;
  metas[0].is_writable = 1;
  metas[0].is_signer = 1;
  metas[1].pubkey = ctx->accounts[1].key;
  metas[1].is_writable = 1;
  metas[1].is_signer = call->seeds != 0;
  SolInstruction instruction;
  instruction.program_id = ctx->accounts[call->system_index].key;
  instruction.accounts = target_only ? &metas[1] : metas;
  instruction.account_len = target_only ? 1 : 2;
  instruction.data = data;
  instruction.data_len = data_len;
  return sol_invoke_signed_c(&instruction, ctx->accounts, call->system_index + 1, call->seeds,
                             call->seeds != 0 ? 1 : 0);
}

/*
 * Creates the target PDA (ctx->accounts[1], signing through call->seeds) with `space` zero
 * bytes, owned by this program and funded by the payer (ctx->accounts[0]) to the rent-exempt
 * minimum. The target must be a system account without data. An address that someone
 * pre-funded is topped up, allocated and assigned instead, so a transfer to the address cannot
 * block the creation; lamports above the minimum stay in the account.
 */
static __attribute__((noinline)) u64 create_pda_account(Context *ctx, const SystemCall *call,
                                                        u64 space) {
  SolAccountInfo *target = &ctx->accounts[1];
  if (!bytes_zero(target->owner->x, 32) || target->data_len != 0) {
    return ERR_INVALID_ACCOUNT;
  }
  u64 required = 0;
  u64 rc = rent_minimum_balance(space, &required);
  if (rc != 0) {
    return rc;
  }
  if (required == 0) {
    required = 1; /* as Bank::get_minimum_balance_for_rent_exemption: an account needs lamports */
  }

  u8 data[52];
  u64 current = *target->lamports;
  if (current == 0) {
    /* CreateAccount { lamports, space, owner } */
    write_u32_le(data, SYSTEM_CREATE_ACCOUNT);
    write_u64_le(data + 4, required);
    write_u64_le(data + 12, space);
    bytes_copy(data + 20, ctx->program_id->x, 32);
    return invoke_system(ctx, call, data, 52, 0);
  }
  if (current < required) {
    write_u32_le(data, SYSTEM_TRANSFER);
    write_u64_le(data + 4, required - current);
    rc = invoke_system(ctx, call, data, 12, 0);
    if (rc != 0) {
      return rc;
    }
  }
  write_u32_le(data, SYSTEM_ALLOCATE);
  write_u64_le(data + 4, space);
  rc = invoke_system(ctx, call, data, 12, 1);
  if (rc != 0) {
    return rc;
  }
  write_u32_le(data, SYSTEM_ASSIGN);
  bytes_copy(data + 4, ctx->program_id->x, 32);
  return invoke_system(ctx, call, data, 36, 1);
}

/*
 * Checks that `program_data` is this program's loader-v3 ProgramData account (owned by the
 * upgradeable loader, tag 3, PDA [program id] under the loader; else InvalidAccount) and that
 * its upgrade authority is present and is `authority` (else Unauthorized).
 */
static __attribute__((noinline)) u64 check_upgrade_authority(Context *ctx,
                                                             const SolAccountInfo *authority,
                                                             const SolAccountInfo *program_data) {
  const u8 *state = program_data->data;
  if (!key_equal(program_data->owner, &UPGRADEABLE_LOADER_ID) ||
      program_data->data_len < PROGRAM_DATA_METADATA_SIZE || state[0] != PROGRAM_DATA_TAG ||
      !bytes_zero(state + 1, 3)) {
    return ERR_INVALID_ACCOUNT;
  }
  SolPubkey expected;
  u8 bump = 0;
  SolSignerSeed program_seed;
  program_seed.addr = ctx->program_id->x;
  program_seed.len = 32;
  if (sol_try_find_program_address(&program_seed, 1, &UPGRADEABLE_LOADER_ID, &expected, &bump) !=
          0 ||
      !key_equal(&expected, program_data->key)) {
    return ERR_INVALID_ACCOUNT;
  }
  if (state[PROGRAM_DATA_OFF_AUTHORITY_TAG] != 1 ||
      !bytes_equal(state + PROGRAM_DATA_OFF_AUTHORITY, authority->key->x, 32)) {
    return ERR_UNAUTHORIZED;
  }
  return 0;
}

/*
 * Reads the anchor configuration at `config` into *anchor_authority: returns 0 with the stored
 * key when it is initialised (program-owned, 41 bytes, discriminator, PDA ["anchor_config",
 * stored bump]); 0 with *anchor_authority = NULL when the address is PDA ["anchor_config"] but
 * holds no configuration yet; InvalidAccount for any other account.
 */
static __attribute__((noinline)) u64 read_anchor_config(Context *ctx, const SolAccountInfo *config,
                                                        const u8 **anchor_authority) {
  const u8 *account = config->data;
  SolPubkey expected;
  *anchor_authority = 0;
  if (key_equal(config->owner, ctx->program_id)) {
    if (config->data_len != ANCHOR_CONFIG_SIZE ||
        !bytes_equal(account, ANCHOR_CONFIG_DISCRIMINATOR, 8)) {
      return ERR_INVALID_ACCOUNT;
    }
    SolSignerSeed seeds[2];
    seeds[0].addr = ANCHOR_CONFIG_SEED;
    seeds[0].len = sizeof(ANCHOR_CONFIG_SEED);
    seeds[1].addr = account + ANCHOR_CONFIG_OFF_BUMP;
    seeds[1].len = 1;
    if (sol_create_program_address(seeds, 2, ctx->program_id, &expected) != 0 ||
        !key_equal(&expected, config->key)) {
      return ERR_INVALID_ACCOUNT;
    }
    *anchor_authority = account + ANCHOR_CONFIG_OFF_AUTHORITY;
    return 0;
  }
  SolSignerSeed seed;
  seed.addr = ANCHOR_CONFIG_SEED;
  seed.len = sizeof(ANCHOR_CONFIG_SEED);
  u8 bump = 0;
  if (sol_try_find_program_address(&seed, 1, ctx->program_id, &expected, &bump) != 0 ||
      !key_equal(&expected, config->key)) {
    return ERR_INVALID_ACCOUNT;
  }
  return 0;
}

/*
 * initialize(owner: Pubkey)
 * Accounts: [authority (signer, writable, payer), commitment PDA (writable), system_program,
 * anchor_config PDA ["anchor_config"] (needed unless the owner signs)].
 * The signer must be the owner, or the anchor authority of the anchor configuration (anyone
 * while the deployment has no configuration yet).
 */
static __attribute__((noinline)) u64 process_initialize(Context *ctx) {
  if (ctx->data_len != INITIALIZE_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 3) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *authority = &ctx->accounts[0];
  SolAccountInfo *commitment = &ctx->accounts[1];
  SolAccountInfo *system_program = &ctx->accounts[2];
  const u8 *owner = ctx->data + 8;

  if (!authority->is_signer) {
    return ERR_UNAUTHORIZED;
  }
  if (!authority->is_writable || !bytes_zero(system_program->key->x, 32)) {
    return ERR_INVALID_ACCOUNT;
  }

  SolPubkey expected;
  u8 bump = 0;
  SolSignerSeed seeds[3];
  seeds[0].addr = SEED_PREFIX;
  seeds[0].len = sizeof(SEED_PREFIX);
  seeds[1].addr = owner;
  seeds[1].len = 32;
  seeds[2].addr = &bump;
  seeds[2].len = 1;
  if (sol_try_find_program_address(seeds, 2, ctx->program_id, &expected, &bump) != 0) {
    return ERR_INVALID_ACCOUNT;
  }
  if (!key_equal(&expected, commitment->key) || !commitment->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }
  if (!bytes_equal(authority->key->x, owner, 32)) {
    if (ctx->account_count < 4) {
      return ERR_NOT_ENOUGH_ACCOUNTS;
    }
    const u8 *anchor_authority = 0;
    u64 rc = read_anchor_config(ctx, &ctx->accounts[3], &anchor_authority);
    if (rc != 0) {
      return rc;
    }
    if (anchor_authority != 0 && !bytes_equal(authority->key->x, anchor_authority, 32)) {
      return ERR_UNAUTHORIZED;
    }
  }
  if (key_equal(commitment->owner, ctx->program_id)) {
    return ERR_ALREADY_INITIALIZED;
  }

  SolSignerSeeds signer;
  signer.addr = seeds;
  signer.len = 3;
  SystemCall call;
  call.seeds = &signer;
  call.system_index = 2;
  u64 rc = create_pda_account(ctx, &call, COMMITMENT_SIZE);
  if (rc != 0) {
    return rc;
  }

  u8 *account = commitment->data;
  bytes_copy(account + OFF_DISCRIMINATOR, ACCOUNT_DISCRIMINATOR, 8);
  bytes_copy(account + OFF_AUTHORITY, authority->key->x, 32);
  bytes_copy(account + OFF_OWNER, owner, 32);
  for (u64 i = 0; i < 32; i++) {
    account[OFF_ROOT + i] = 0;
  }
  write_u64_le(account + OFF_MEMORY_COUNT, 0);
  write_u64_le(account + OFF_NONCE, 0);
  account[OFF_BUMP] = bump;
  return 0;
}

/*
 * Applies one commit entry (root [32] || memory_count u64 LE || expected_nonce u64 LE) to
 * `commitment`, signed by `authority`. Checks, in order: the account is program-owned, 121
 * bytes, with the discriminator, writable, and the PDA of its stored owner and bump
 * (InvalidAccount); the authority signed and is the stored authority (Unauthorized);
 * memory_count >= stored count (CountDecreased), and at an equal count the root is the stored
 * one (RootMismatch); expected_nonce == stored nonce (NonceMismatch); nonce < u64::MAX
 * (NonceOverflow). Then stores root and count and advances the nonce.
 */
static __attribute__((noinline)) u64 apply_commit(Context *ctx, const SolAccountInfo *authority,
                                                  const SolAccountInfo *commitment,
                                                  const u8 *entry) {
  u8 *account = commitment->data;
  if (!key_equal(commitment->owner, ctx->program_id) || commitment->data_len != COMMITMENT_SIZE ||
      !bytes_equal(account + OFF_DISCRIMINATOR, ACCOUNT_DISCRIMINATOR, 8) ||
      !commitment->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }

  SolPubkey expected;
  SolSignerSeed seeds[3];
  seeds[0].addr = SEED_PREFIX;
  seeds[0].len = sizeof(SEED_PREFIX);
  seeds[1].addr = account + OFF_OWNER;
  seeds[1].len = 32;
  seeds[2].addr = account + OFF_BUMP;
  seeds[2].len = 1;
  if (sol_create_program_address(seeds, 3, ctx->program_id, &expected) != 0 ||
      !key_equal(&expected, commitment->key)) {
    return ERR_INVALID_ACCOUNT;
  }

  if (!authority->is_signer || !bytes_equal(authority->key->x, account + OFF_AUTHORITY, 32)) {
    return ERR_UNAUTHORIZED;
  }

  const u8 *root = entry;
  u64 memory_count = read_u64_le(entry + 32);
  u64 expected_nonce = read_u64_le(entry + 40);
  u64 stored_count = read_u64_le(account + OFF_MEMORY_COUNT);
  if (memory_count < stored_count) {
    return ERR_COUNT_DECREASED;
  }
  if (memory_count == stored_count && !bytes_equal(root, account + OFF_ROOT, 32)) {
    return ERR_ROOT_MISMATCH;
  }
  u64 nonce = read_u64_le(account + OFF_NONCE);
  if (expected_nonce != nonce) {
    return ERR_NONCE_MISMATCH;
  }
  if (nonce == U64_MAX) {
    return ERR_NONCE_OVERFLOW;
  }

  bytes_copy(account + OFF_ROOT, root, 32);
  write_u64_le(account + OFF_MEMORY_COUNT, memory_count);
  write_u64_le(account + OFF_NONCE, nonce + 1);
  return 0;
}

/*
 * commit(root: [u8; 32], memory_count: u64, expected_nonce: u64)
 * Accounts: [authority (signer), commitment PDA (writable)].
 */
static __attribute__((noinline)) u64 process_commit(Context *ctx) {
  if (ctx->data_len != COMMIT_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 2) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  return apply_commit(ctx, &ctx->accounts[0], &ctx->accounts[1], ctx->data + 8);
}

/*
 * commit_many(entries: Vec<CommitEntry { root: [u8; 32], memory_count: u64, expected_nonce:
 * u64 }>)
 * Accounts: [authority (signer), then one commitment PDA (writable) per entry, in entry order].
 * Every entry passes apply_commit's checks or the whole instruction fails; the refused entry is
 * logged as "commit_many: entry refused" followed by sol_log_64_(index, code, 0, 0, 0). An
 * account listed twice (a duplicate account meta) is InvalidAccount.
 */
static __attribute__((noinline)) u64 process_commit_many(Context *ctx) {
  if (ctx->data_len < COMMIT_MANY_HEADER_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  const u8 *data = ctx->data;
  u64 count = (u64)data[8] | ((u64)data[9] << 8) | ((u64)data[10] << 16) | ((u64)data[11] << 24);
  if (count == 0 || count > (ctx->data_len - COMMIT_MANY_HEADER_LEN) / COMMIT_ENTRY_LEN ||
      ctx->data_len != COMMIT_MANY_HEADER_LEN + count * COMMIT_ENTRY_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < count + 1) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo commitment;
  u8 dup = NON_DUP_MARKER;
  u8 *p = parse_account(ctx->first_account, &commitment, &dup);
  for (u64 i = 0; i < count; i++) {
    p = parse_account(p, &commitment, &dup);
    u64 rc = dup != NON_DUP_MARKER ? ERR_INVALID_ACCOUNT
                                   : apply_commit(ctx, &ctx->accounts[0], &commitment,
                                                  data + COMMIT_MANY_HEADER_LEN +
                                                      i * COMMIT_ENTRY_LEN);
    if (rc != 0) {
      LOG("commit_many: entry refused");
      sol_log_64_(i, rc, 0, 0, 0);
      return rc;
    }
  }
  return 0;
}

/*
 * set_authority(new_authority: Pubkey)
 * Accounts: [signer, commitment PDA (writable)].
 * Replaces the stored authority of a commitment. The signer must be the stored authority or
 * the stored owner (Unauthorized); the account must pass commit's account checks
 * (InvalidAccount). Root, count and nonce are unchanged.
 */
static __attribute__((noinline)) u64 process_set_authority(Context *ctx) {
  if (ctx->data_len != SET_AUTHORITY_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 2) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *signer = &ctx->accounts[0];
  SolAccountInfo *commitment = &ctx->accounts[1];
  u8 *account = commitment->data;
  if (!key_equal(commitment->owner, ctx->program_id) || commitment->data_len != COMMITMENT_SIZE ||
      !bytes_equal(account + OFF_DISCRIMINATOR, ACCOUNT_DISCRIMINATOR, 8) ||
      !commitment->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }
  SolPubkey expected;
  SolSignerSeed seeds[3];
  seeds[0].addr = SEED_PREFIX;
  seeds[0].len = sizeof(SEED_PREFIX);
  seeds[1].addr = account + OFF_OWNER;
  seeds[1].len = 32;
  seeds[2].addr = account + OFF_BUMP;
  seeds[2].len = 1;
  if (sol_create_program_address(seeds, 3, ctx->program_id, &expected) != 0 ||
      !key_equal(&expected, commitment->key)) {
    return ERR_INVALID_ACCOUNT;
  }
  if (!signer->is_signer || (!bytes_equal(signer->key->x, account + OFF_AUTHORITY, 32) &&
                             !bytes_equal(signer->key->x, account + OFF_OWNER, 32))) {
    return ERR_UNAUTHORIZED;
  }
  bytes_copy(account + OFF_AUTHORITY, ctx->data + 8, 32);
  return 0;
}

/*
 * The cluster's unix_timestamp (Clock sysvar: slot, epoch_start_timestamp, epoch,
 * leader_schedule_epoch, unix_timestamp). sol_get_clock_sysvar returns 0 or aborts the program
 * (agave `get_sysvar`), so its result carries no information.
 */
static i64 clock_unix_timestamp(void) {
  u64 clock[5];
  sol_get_clock_sysvar(clock);
  return (i64)clock[4];
}

/*
 * initialize_stake_config(lock_period_seconds: u64)
 * Accounts: [authority (signer, writable, payer), stake_config PDA ["stake_config"] (writable),
 * program_data (the loader-v3 ProgramData of this program), system_program].
 * Only the upgrade authority recorded in ProgramData may call it, once.
 */
static __attribute__((noinline)) u64 process_initialize_stake_config(Context *ctx) {
  if (ctx->data_len != INITIALIZE_STAKE_CONFIG_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 4) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *authority = &ctx->accounts[0];
  SolAccountInfo *config = &ctx->accounts[1];
  SolAccountInfo *program_data = &ctx->accounts[2];
  SolAccountInfo *system_program = &ctx->accounts[3];

  if (!authority->is_signer) {
    return ERR_UNAUTHORIZED;
  }
  if (!authority->is_writable || !bytes_zero(system_program->key->x, 32)) {
    return ERR_INVALID_ACCOUNT;
  }

  u64 rc = check_upgrade_authority(ctx, authority, program_data);
  if (rc != 0) {
    return rc;
  }

  SolPubkey expected;
  u8 bump = 0;
  u64 lock_period = read_u64_le(ctx->data + 8);
  if (lock_period == 0 || lock_period > MAX_LOCK_PERIOD) {
    return ERR_INVALID_LOCK_PERIOD;
  }

  SolSignerSeed seeds[2];
  seeds[0].addr = CONFIG_SEED;
  seeds[0].len = sizeof(CONFIG_SEED);
  seeds[1].addr = &bump;
  seeds[1].len = 1;
  if (sol_try_find_program_address(seeds, 1, ctx->program_id, &expected, &bump) != 0 ||
      !key_equal(&expected, config->key) || !config->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }
  if (key_equal(config->owner, ctx->program_id)) {
    return ERR_ALREADY_INITIALIZED;
  }

  SolSignerSeeds signer;
  signer.addr = seeds;
  signer.len = 2;
  SystemCall call;
  call.seeds = &signer;
  call.system_index = 3;
  rc = create_pda_account(ctx, &call, CONFIG_SIZE);
  if (rc != 0) {
    return rc;
  }

  u8 *account = config->data;
  bytes_copy(account, CONFIG_DISCRIMINATOR, 8);
  bytes_copy(account + CONFIG_OFF_AUTHORITY, authority->key->x, 32);
  write_u64_le(account + CONFIG_OFF_LOCK_PERIOD, lock_period);
  account[CONFIG_OFF_BUMP] = bump;
  return 0;
}

/*
 * Reads the lock period from the stake configuration account. An initialised configuration is
 * program-owned, 49 bytes, with its discriminator, at PDA ["stake_config", stored bump]; any
 * other account at the configuration's address gives StakeNotConfigured, any other address
 * InvalidAccount.
 */
static __attribute__((noinline)) u64 stake_lock_period(Context *ctx, const SolAccountInfo *config,
                                                        u64 *lock_period) {
  const u8 *account = config->data;
  SolPubkey expected;
  if (key_equal(config->owner, ctx->program_id) && config->data_len == CONFIG_SIZE &&
      bytes_equal(account, CONFIG_DISCRIMINATOR, 8)) {
    SolSignerSeed seeds[2];
    seeds[0].addr = CONFIG_SEED;
    seeds[0].len = sizeof(CONFIG_SEED);
    seeds[1].addr = account + CONFIG_OFF_BUMP;
    seeds[1].len = 1;
    if (sol_create_program_address(seeds, 2, ctx->program_id, &expected) != 0 ||
        !key_equal(&expected, config->key)) {
      return ERR_INVALID_ACCOUNT;
    }
    *lock_period = read_u64_le(account + CONFIG_OFF_LOCK_PERIOD);
    return 0;
  }
  SolSignerSeed seed;
  seed.addr = CONFIG_SEED;
  seed.len = sizeof(CONFIG_SEED);
  u8 bump = 0;
  if (sol_try_find_program_address(&seed, 1, ctx->program_id, &expected, &bump) == 0 &&
      key_equal(&expected, config->key)) {
    return ERR_STAKE_NOT_CONFIGURED;
  }
  return ERR_INVALID_ACCOUNT;
}

/*
 * Checks that the program-owned `vault` is the stake vault of the signer `owner`: 560 bytes
 * with the vault discriminator and at most MAX_LOTS lots (else InvalidAccount), its stored
 * owner is the signer and its key is PDA ["vault", signer, stored bump] (else WrongOwner).
 */
static __attribute__((noinline)) u64 check_vault(Context *ctx, const SolAccountInfo *vault,
                                                 const SolAccountInfo *owner) {
  const u8 *account = vault->data;
  if (!key_equal(vault->owner, ctx->program_id) || vault->data_len != VAULT_SIZE ||
      !bytes_equal(account, VAULT_DISCRIMINATOR, 8) || account[VAULT_OFF_LOT_COUNT] > MAX_LOTS) {
    return ERR_INVALID_ACCOUNT;
  }
  if (!bytes_equal(account + VAULT_OFF_OWNER, owner->key->x, 32)) {
    return ERR_WRONG_OWNER;
  }
  SolPubkey expected;
  SolSignerSeed seeds[3];
  seeds[0].addr = VAULT_SEED;
  seeds[0].len = sizeof(VAULT_SEED);
  seeds[1].addr = owner->key->x;
  seeds[1].len = 32;
  seeds[2].addr = account + VAULT_OFF_BUMP;
  seeds[2].len = 1;
  if (sol_create_program_address(seeds, 3, ctx->program_id, &expected) != 0 ||
      !key_equal(&expected, vault->key)) {
    return ERR_WRONG_OWNER;
  }
  return 0;
}

/*
 * Creates the stake vault of the signer (ctx->accounts[0], payer) at ctx->accounts[1], which
 * must be PDA ["vault", signer] (else WrongOwner), with no lots. The system program is
 * ctx->accounts[3].
 */
static __attribute__((noinline)) u64 create_vault(Context *ctx) {
  SolAccountInfo *owner = &ctx->accounts[0];
  SolAccountInfo *vault = &ctx->accounts[1];
  SolPubkey expected;
  u8 bump = 0;
  SolSignerSeed seeds[3];
  seeds[0].addr = VAULT_SEED;
  seeds[0].len = sizeof(VAULT_SEED);
  seeds[1].addr = owner->key->x;
  seeds[1].len = 32;
  seeds[2].addr = &bump;
  seeds[2].len = 1;
  if (sol_try_find_program_address(seeds, 2, ctx->program_id, &expected, &bump) != 0 ||
      !key_equal(&expected, vault->key)) {
    return ERR_WRONG_OWNER;
  }
  SolSignerSeeds signer;
  signer.addr = seeds;
  signer.len = 3;
  SystemCall call;
  call.seeds = &signer;
  call.system_index = 3;
  u64 rc = create_pda_account(ctx, &call, VAULT_SIZE);
  if (rc != 0) {
    return rc;
  }
  u8 *account = vault->data;
  bytes_copy(account, VAULT_DISCRIMINATOR, 8);
  bytes_copy(account + VAULT_OFF_OWNER, owner->key->x, 32);
  account[VAULT_OFF_BUMP] = bump;
  account[VAULT_OFF_LOT_COUNT] = 0;
  return 0;
}

/*
 * stake(amount: u64)
 * Accounts: [owner (signer, writable, payer), vault PDA ["vault", owner] (writable),
 * stake_config PDA, system_program].
 * Creates the vault on first use, moves `amount` lamports from the owner into the vault with a
 * system Transfer and appends the lot { amount, unlock_at = now + lock period }.
 */
static __attribute__((noinline)) u64 process_stake(Context *ctx) {
  if (ctx->data_len != STAKE_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 4) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *owner = &ctx->accounts[0];
  SolAccountInfo *vault = &ctx->accounts[1];
  SolAccountInfo *config = &ctx->accounts[2];
  SolAccountInfo *system_program = &ctx->accounts[3];

  if (!owner->is_signer) {
    return ERR_UNAUTHORIZED;
  }
  if (!owner->is_writable || !vault->is_writable || !bytes_zero(system_program->key->x, 32)) {
    return ERR_INVALID_ACCOUNT;
  }
  u64 amount = read_u64_le(ctx->data + 8);
  if (amount == 0) {
    return ERR_ZERO_AMOUNT;
  }
  u64 lock_period = 0;
  u64 rc = stake_lock_period(ctx, config, &lock_period);
  if (rc != 0) {
    return rc;
  }
  i64 now = clock_unix_timestamp();
  if (now > I64_MAX - (i64)lock_period) {
    return ERR_ARITHMETIC_OVERFLOW;
  }
  i64 unlock_at = now + (i64)lock_period;

  if (key_equal(vault->owner, ctx->program_id)) {
    rc = check_vault(ctx, vault, owner);
  } else {
    rc = create_vault(ctx);
  }
  if (rc != 0) {
    return rc;
  }
  u8 *account = vault->data;
  u64 count = account[VAULT_OFF_LOT_COUNT];
  if (count >= MAX_LOTS) {
    return ERR_TOO_MANY_LOTS;
  }

  /* Transfer { lamports } from the owner (a transaction signer) to the vault. */
  u8 data[12];
  write_u32_le(data, SYSTEM_TRANSFER);
  write_u64_le(data + 4, amount);
  SystemCall call;
  call.seeds = 0;
  call.system_index = 3;
  rc = invoke_system(ctx, &call, data, sizeof(data), 0);
  if (rc != 0) {
    return rc;
  }

  /* Account data is 8-byte aligned in the input, and so is every lot. */
  u64 *lot = (u64 *)(account + VAULT_OFF_LOTS) + 2 * count;
  lot[0] = amount;
  lot[1] = (u64)unlock_at;
  account[VAULT_OFF_LOT_COUNT] = (u8)(count + 1);
  return 0;
}

/*
 * unstake()
 * Accounts: [owner (signer, writable), vault PDA ["vault", owner] (writable)].
 * Pays every lot with unlock_at <= now from the vault's lamports to the owner, keeps the other
 * lots in order and zeroes the freed slots. Only lot amounts leave the vault, so it keeps its
 * rent-exempt reserve. A failed instruction's writes are discarded by the runtime.
 */
static __attribute__((noinline)) u64 process_unstake(Context *ctx) {
  if (ctx->data_len != UNSTAKE_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 2) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *owner = &ctx->accounts[0];
  SolAccountInfo *vault = &ctx->accounts[1];

  if (!owner->is_signer) {
    return ERR_UNAUTHORIZED;
  }
  if (!owner->is_writable || !vault->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }
  u64 rc = check_vault(ctx, vault, owner);
  if (rc != 0) {
    return rc;
  }

  i64 now = clock_unix_timestamp();
  u8 *account = vault->data;
  u64 count = account[VAULT_OFF_LOT_COUNT];
  u64 *lots = (u64 *)(account + VAULT_OFF_LOTS);
  u64 total = 0;
  u64 kept = 0;
  for (u64 i = 0; i < count; i++) {
    u64 amount = lots[2 * i];
    u64 unlock_at = lots[2 * i + 1];
    if ((i64)unlock_at <= now) {
      if (amount > U64_MAX - total) {
        return ERR_ARITHMETIC_OVERFLOW;
      }
      total += amount;
    } else {
      lots[2 * kept] = amount;
      lots[2 * kept + 1] = unlock_at;
      kept++;
    }
  }
  if (kept == count) {
    return ERR_NOTHING_MATURED;
  }
  for (u64 i = 2 * kept; i < 2 * count; i++) {
    lots[i] = 0;
  }
  account[VAULT_OFF_LOT_COUNT] = (u8)kept;

  if (*vault->lamports < total || *owner->lamports > U64_MAX - total) {
    return ERR_ARITHMETIC_OVERFLOW;
  }
  *vault->lamports -= total;
  *owner->lamports += total;
  return 0;
}

/*
 * set_anchor_config(anchor_authority: Pubkey)
 * Accounts: [authority (signer, writable, payer), anchor_config PDA ["anchor_config"]
 * (writable), program_data (the loader-v3 ProgramData of this program), system_program].
 * Only the upgrade authority recorded in ProgramData may call it. Creates the configuration
 * (rent-exempt, paid by the signer) or replaces the anchor authority it names.
 */
static __attribute__((noinline)) u64 process_set_anchor_config(Context *ctx) {
  if (ctx->data_len != SET_ANCHOR_CONFIG_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 4) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *authority = &ctx->accounts[0];
  SolAccountInfo *config = &ctx->accounts[1];
  SolAccountInfo *system_program = &ctx->accounts[3];
  if (!authority->is_signer) {
    return ERR_UNAUTHORIZED;
  }
  if (!authority->is_writable || !config->is_writable ||
      !bytes_zero(system_program->key->x, 32)) {
    return ERR_INVALID_ACCOUNT;
  }
  u64 rc = check_upgrade_authority(ctx, authority, &ctx->accounts[2]);
  if (rc != 0) {
    return rc;
  }
  const u8 *stored = 0;
  rc = read_anchor_config(ctx, config, &stored);
  if (rc != 0) {
    return rc;
  }
  u8 *account = config->data;
  if (stored == 0) {
    SolPubkey expected;
    u8 bump = 0;
    SolSignerSeed seeds[2];
    seeds[0].addr = ANCHOR_CONFIG_SEED;
    seeds[0].len = sizeof(ANCHOR_CONFIG_SEED);
    seeds[1].addr = &bump;
    seeds[1].len = 1;
    sol_try_find_program_address(seeds, 1, ctx->program_id, &expected, &bump);
    SolSignerSeeds signer;
    signer.addr = seeds;
    signer.len = 2;
    SystemCall call;
    call.seeds = &signer;
    call.system_index = 3;
    rc = create_pda_account(ctx, &call, ANCHOR_CONFIG_SIZE);
    if (rc != 0) {
      return rc;
    }
    bytes_copy(account, ANCHOR_CONFIG_DISCRIMINATOR, 8);
    account[ANCHOR_CONFIG_OFF_BUMP] = bump;
  }
  bytes_copy(account + ANCHOR_CONFIG_OFF_AUTHORITY, ctx->data + 8, 32);
  return 0;
}

/*
 * sweep_vault()
 * Accounts: [owner (signer, writable), vault PDA ["vault", owner] (writable)].
 * A vault without lots is closed: all its lamports go to the owner, its data is emptied and it
 * is handed back to the system program (a later stake creates it again). A vault with lots
 * keeps its rent-exempt minimum plus the sum of its lots and pays the owner every lamport
 * above that (sent to the address outside stake); with none above, NothingToSweep.
 */
static __attribute__((noinline)) u64 process_sweep_vault(Context *ctx) {
  if (ctx->data_len != SWEEP_VAULT_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 2) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *owner = &ctx->accounts[0];
  SolAccountInfo *vault = &ctx->accounts[1];
  if (!owner->is_signer) {
    return ERR_UNAUTHORIZED;
  }
  if (!owner->is_writable || !vault->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }
  u64 rc = check_vault(ctx, vault, owner);
  if (rc != 0) {
    return rc;
  }
  u8 *account = vault->data;
  u64 count = account[VAULT_OFF_LOT_COUNT];
  u64 payout = *vault->lamports;
  if (count != 0) {
    u64 keep = 0;
    rc = rent_minimum_balance(VAULT_SIZE, &keep);
    if (rc != 0) {
      return rc;
    }
    const u64 *lots = (const u64 *)(account + VAULT_OFF_LOTS);
    for (u64 i = 0; i < count; i++) {
      if (lots[2 * i] > U64_MAX - keep) {
        return ERR_ARITHMETIC_OVERFLOW;
      }
      keep += lots[2 * i];
    }
    if (payout <= keep) {
      return ERR_NOTHING_TO_SWEEP;
    }
    payout -= keep;
  } else {
    for (u64 i = 0; i < VAULT_SIZE; i++) {
      account[i] = 0;
    }
    *(u64 *)(account - sizeof(u64)) = 0; /* the serialized data_len: the runtime shrinks it */
    for (u64 i = 0; i < 32; i++) {
      vault->owner->x[i] = 0; /* assigned back to the system program */
    }
  }
  if (*owner->lamports > U64_MAX - payout) {
    return ERR_ARITHMETIC_OVERFLOW;
  }
  *vault->lamports -= payout;
  *owner->lamports += payout;
  return 0;
}

/*
 * initialize_checkpoint_log()
 * Accounts: [authority (signer, writable, payer), checkpoint_log PDA ["checkpoint-log",
 * authority] (writable), system_program].
 * Creates the authority's own checkpoint log account (89 bytes, rent-exempt): zero root, size
 * 0, nonce 0. The address names the signer, so nobody else can create or squat it.
 */
static __attribute__((noinline)) u64 process_initialize_checkpoint_log(Context *ctx) {
  if (ctx->data_len != INITIALIZE_CHECKPOINT_LOG_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 3) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *authority = &ctx->accounts[0];
  SolAccountInfo *log = &ctx->accounts[1];
  if (!authority->is_signer) {
    return ERR_UNAUTHORIZED;
  }
  if (!authority->is_writable || !bytes_zero(ctx->accounts[2].key->x, 32)) {
    return ERR_INVALID_ACCOUNT;
  }
  SolPubkey expected;
  u8 bump = 0;
  SolSignerSeed seeds[3];
  seeds[0].addr = CHECKPOINT_LOG_SEED;
  seeds[0].len = sizeof(CHECKPOINT_LOG_SEED);
  seeds[1].addr = authority->key->x;
  seeds[1].len = 32;
  seeds[2].addr = &bump;
  seeds[2].len = 1;
  if (sol_try_find_program_address(seeds, 2, ctx->program_id, &expected, &bump) != 0 ||
      !key_equal(&expected, log->key) || !log->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }
  if (key_equal(log->owner, ctx->program_id)) {
    return ERR_ALREADY_INITIALIZED;
  }
  SolSignerSeeds signer;
  signer.addr = seeds;
  signer.len = 3;
  SystemCall call;
  call.seeds = &signer;
  call.system_index = 2;
  u64 rc = create_pda_account(ctx, &call, CHECKPOINT_LOG_SIZE);
  if (rc != 0) {
    return rc;
  }
  u8 *account = log->data;
  bytes_copy(account, CHECKPOINT_LOG_DISCRIMINATOR, 8);
  bytes_copy(account + LOG_OFF_AUTHORITY, authority->key->x, 32);
  account[LOG_OFF_BUMP] = bump;
  return 0;
}

/*
 * commit_checkpoint_log(root: [u8; 32], size: u64, expected_nonce: u64)
 * Accounts: [authority (signer), checkpoint_log PDA (writable)].
 * The rules of commit: program-owned, 89 bytes, discriminator, writable and PDA
 * ["checkpoint-log", stored authority, stored bump] (InvalidAccount); the stored authority
 * signed (Unauthorized); size >= stored size (CountDecreased) and the stored root at an equal
 * size (RootMismatch); expected_nonce == stored nonce (NonceMismatch); nonce < u64::MAX.
 */
static __attribute__((noinline)) u64 process_commit_checkpoint_log(Context *ctx) {
  if (ctx->data_len != COMMIT_CHECKPOINT_LOG_DATA_LEN) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (ctx->account_count < 2) {
    return ERR_NOT_ENOUGH_ACCOUNTS;
  }
  SolAccountInfo *authority = &ctx->accounts[0];
  SolAccountInfo *log = &ctx->accounts[1];
  u8 *account = log->data;
  if (!key_equal(log->owner, ctx->program_id) || log->data_len != CHECKPOINT_LOG_SIZE ||
      !bytes_equal(account, CHECKPOINT_LOG_DISCRIMINATOR, 8) || !log->is_writable) {
    return ERR_INVALID_ACCOUNT;
  }
  SolPubkey expected;
  SolSignerSeed seeds[3];
  seeds[0].addr = CHECKPOINT_LOG_SEED;
  seeds[0].len = sizeof(CHECKPOINT_LOG_SEED);
  seeds[1].addr = account + LOG_OFF_AUTHORITY;
  seeds[1].len = 32;
  seeds[2].addr = account + LOG_OFF_BUMP;
  seeds[2].len = 1;
  if (sol_create_program_address(seeds, 3, ctx->program_id, &expected) != 0 ||
      !key_equal(&expected, log->key)) {
    return ERR_INVALID_ACCOUNT;
  }
  if (!authority->is_signer || !bytes_equal(authority->key->x, account + LOG_OFF_AUTHORITY, 32)) {
    return ERR_UNAUTHORIZED;
  }
  const u8 *root = ctx->data + 8;
  u64 size = read_u64_le(ctx->data + 40);
  u64 expected_nonce = read_u64_le(ctx->data + 48);
  u64 stored_size = read_u64_le(account + LOG_OFF_SIZE);
  if (size < stored_size) {
    return ERR_COUNT_DECREASED;
  }
  if (size == stored_size && !bytes_equal(root, account + LOG_OFF_ROOT, 32)) {
    return ERR_ROOT_MISMATCH;
  }
  u64 nonce = read_u64_le(account + LOG_OFF_NONCE);
  if (expected_nonce != nonce) {
    return ERR_NONCE_MISMATCH;
  }
  if (nonce == U64_MAX) {
    return ERR_NONCE_OVERFLOW;
  }
  bytes_copy(account + LOG_OFF_ROOT, root, 32);
  write_u64_le(account + LOG_OFF_SIZE, size);
  write_u64_le(account + LOG_OFF_NONCE, nonce + 1);
  return 0;
}

u64 entrypoint(u8 *input) {
  Context ctx;
  deserialize(input, &ctx);
  if (ctx.data_len < 8) {
    return ERR_INVALID_INSTRUCTION;
  }
  if (bytes_equal(ctx.data, INITIALIZE_DISCRIMINATOR, 8)) {
    LOG("Instruction: Initialize");
    return process_initialize(&ctx);
  }
  if (bytes_equal(ctx.data, COMMIT_DISCRIMINATOR, 8)) {
    LOG("Instruction: Commit");
    return process_commit(&ctx);
  }
  if (bytes_equal(ctx.data, INITIALIZE_STAKE_CONFIG_DISCRIMINATOR, 8)) {
    LOG("Instruction: InitializeStakeConfig");
    return process_initialize_stake_config(&ctx);
  }
  if (bytes_equal(ctx.data, STAKE_DISCRIMINATOR, 8)) {
    LOG("Instruction: Stake");
    return process_stake(&ctx);
  }
  if (bytes_equal(ctx.data, UNSTAKE_DISCRIMINATOR, 8)) {
    LOG("Instruction: Unstake");
    return process_unstake(&ctx);
  }
  if (bytes_equal(ctx.data, COMMIT_MANY_DISCRIMINATOR, 8)) {
    LOG("Instruction: CommitMany");
    return process_commit_many(&ctx);
  }
  if (bytes_equal(ctx.data, SET_AUTHORITY_DISCRIMINATOR, 8)) {
    LOG("Instruction: SetAuthority");
    return process_set_authority(&ctx);
  }
  if (bytes_equal(ctx.data, SET_ANCHOR_CONFIG_DISCRIMINATOR, 8)) {
    LOG("Instruction: SetAnchorConfig");
    return process_set_anchor_config(&ctx);
  }
  if (bytes_equal(ctx.data, INITIALIZE_CHECKPOINT_LOG_DISCRIMINATOR, 8)) {
    LOG("Instruction: InitializeCheckpointLog");
    return process_initialize_checkpoint_log(&ctx);
  }
  if (bytes_equal(ctx.data, COMMIT_CHECKPOINT_LOG_DISCRIMINATOR, 8)) {
    LOG("Instruction: CommitCheckpointLog");
    return process_commit_checkpoint_log(&ctx);
  }
  if (bytes_equal(ctx.data, SWEEP_VAULT_DISCRIMINATOR, 8)) {
    LOG("Instruction: SweepVault");
    return process_sweep_vault(&ctx);
  }
  return ERR_INVALID_INSTRUCTION;
}
