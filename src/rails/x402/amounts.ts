/**
 * What an x402 requirement's `amount` (atomic units of its asset) is worth in minor units of a
 * currency. Only assets known here are converted: an unknown asset is refused, never guessed.
 */

/** A USD stablecoin the rail converts: one token = 1 USD, `decimals` atomic digits. */
export interface UsdStablecoin {
  /** CAIP-2 network id, e.g. `eip155:8453`. */
  network: string;
  /** The token contract (EVM addresses compare case-insensitively). */
  asset: string;
  symbol: string;
  decimals: number;
  label: string;
}

/**
 * The known USD stablecoins (USDC on these networks; the addresses are the ones the official x402
 * packages use as their networks' defaults). docs/rails/x402.md lists the same table.
 */
export const USD_STABLECOINS: readonly UsdStablecoin[] = [
  { network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', symbol: 'USDC', decimals: 6, label: 'Base' },
  { network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', symbol: 'USDC', decimals: 6, label: 'Base Sepolia (testnet)' },
  { network: 'eip155:1', asset: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', symbol: 'USDC', decimals: 6, label: 'Ethereum' },
  { network: 'eip155:137', asset: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', symbol: 'USDC', decimals: 6, label: 'Polygon' },
  { network: 'eip155:42161', asset: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', symbol: 'USDC', decimals: 6, label: 'Arbitrum One' },
  { network: 'eip155:421614', asset: '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d', symbol: 'USDC', decimals: 6, label: 'Arbitrum Sepolia (testnet)' },
  { network: 'eip155:43114', asset: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', symbol: 'USDC', decimals: 6, label: 'Avalanche C-Chain' },
];

/** The currency every known asset converts to, and its minor-unit digits (cents). */
export const X402_CURRENCY = 'USD';
const CURRENCY_DIGITS = 2;

/** The known stablecoin at `asset` on `network`, or undefined. */
export function findUsdStablecoin(network: string, asset: string): UsdStablecoin | undefined {
  const evm = network.startsWith('eip155:');
  return USD_STABLECOINS.find((c) => c.network === network && (evm ? c.asset.toLowerCase() === asset.toLowerCase() : c.asset === asset));
}

/** An amount the rail cannot convert: not a positive integer string, or beyond a safe integer of minor units. */
export class AmountError extends Error {
  override name = 'AmountError';
}

/**
 * `amount` atomic units of a token with `decimals` digits, in minor units (cents) of its USD value,
 * **rounded up**: a budget never counts less than what is paid (1 atomic unit of USDC = 1 cent).
 */
export function atomicToMinorUnits(amount: string, decimals: number): number {
  if (!/^[0-9]{1,78}$/.test(amount)) throw new AmountError(`the amount "${amount.slice(0, 80)}" is not a whole number of atomic units`);
  const atomic = BigInt(amount);
  if (atomic <= 0n) throw new AmountError('the amount is zero');
  const shift = decimals - CURRENCY_DIGITS;
  const minor = shift >= 0 ? (atomic + 10n ** BigInt(shift) - 1n) / 10n ** BigInt(shift) : atomic * 10n ** BigInt(-shift);
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new AmountError(`the amount ${amount} is too large`);
  return Number(minor);
}
