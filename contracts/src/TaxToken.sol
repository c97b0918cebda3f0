// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice Constructor parameters of a TaxToken (one struct so CREATE2 prediction hashes one blob).
struct TaxTokenParams {
    string name;
    string symbol;
    uint256 totalSupply;
    /// Receives the whole supply and is the only address allowed to seed the DEX pair.
    address manager;
    address dexFactory;
    address wbnb;
    bytes32 pairInitCodeHash;
    uint16 buyTaxBps;
    uint16 sellTaxBps;
    address treasury;
    address platform;
    /// Share of each collected tax that goes to the treasury; the rest goes to the platform.
    uint16 treasuryShareBps;
}

/// @title TaxToken
/// @notice ERC-20 with a buy and a sell tax that apply only to trades against its own DEX pair,
/// and only after `graduate()` has been called by the manager (the bonding curve or a vault).
/// Tax is paid in the token itself, split between treasury and platform at collection time.
contract TaxToken is ERC20 {
    uint16 public constant MAX_TAX_BPS = 1000;

    address public immutable manager;
    /// The Uniswap V2 pair with WBNB, known before it exists (CREATE2 of factory/token/WBNB).
    address public immutable pair;
    uint16 public immutable buyTaxBps;
    uint16 public immutable sellTaxBps;
    address public immutable treasury;
    address public immutable platform;
    uint16 public immutable treasuryShareBps;
    bool public graduated;

    /// @notice A taxed DEX trade: `isBuy` when tokens leave the pair, else a sell into it.
    event TaxCollected(
        address indexed payer, address indexed pair, bool indexed isBuy, uint256 amount, uint256 tax
    );
    /// @notice Where a collected tax went (emitted right after TaxCollected, same trade).
    event TaxDistributed(
        address indexed treasury, address indexed platform, uint256 treasuryAmount, uint256 platformAmount
    );
    /// @notice The manager added liquidity: from now on DEX trades are taxed.
    event Graduated(address indexed pair);

    error TaxTooHigh();
    error BadShare();
    error OnlyManager();
    error PairLocked();

    constructor(TaxTokenParams memory p) ERC20(p.name, p.symbol) {
        if (p.buyTaxBps > MAX_TAX_BPS || p.sellTaxBps > MAX_TAX_BPS) revert TaxTooHigh();
        if (p.treasuryShareBps > 10_000) revert BadShare();
        manager = p.manager;
        buyTaxBps = p.buyTaxBps;
        sellTaxBps = p.sellTaxBps;
        treasury = p.treasury;
        platform = p.platform;
        treasuryShareBps = p.treasuryShareBps;
        (address t0, address t1) = address(this) < p.wbnb ? (address(this), p.wbnb) : (p.wbnb, address(this));
        pair = address(
            uint160(
                uint256(
                    keccak256(
                        abi.encodePacked(
                            hex"ff", p.dexFactory, keccak256(abi.encodePacked(t0, t1)), p.pairInitCodeHash
                        )
                    )
                )
            )
        );
        _mint(p.manager, p.totalSupply);
    }

    /// @notice Called once by the manager after it seeded the pair; switches the tax on.
    function graduate() external {
        if (msg.sender != manager) revert OnlyManager();
        if (!graduated) {
            graduated = true;
            emit Graduated(pair);
        }
    }

    function _update(address from, address to, uint256 value) internal override {
        if (!graduated) {
            // Before graduation only the manager may put tokens into the pair, so nobody can
            // pre-seed it at a price of their choosing (which would make graduation add liquidity
            // at that ratio or revert).
            if (to == pair && from != manager) revert PairLocked();
            super._update(from, to, value);
            return;
        }
        bool isBuy = from == pair;
        bool isSell = to == pair;
        // Pair <-> pair cannot happen; the manager's own movements are never taxed.
        if ((!isBuy && !isSell) || from == manager || to == manager || value == 0) {
            super._update(from, to, value);
            return;
        }
        uint256 rate = isBuy ? buyTaxBps : sellTaxBps;
        uint256 tax = (value * rate) / 10_000;
        if (tax == 0) {
            super._update(from, to, value);
            return;
        }
        uint256 toTreasury = (tax * treasuryShareBps) / 10_000;
        uint256 toPlatform = tax - toTreasury;
        super._update(from, to, value - tax);
        if (toTreasury > 0) super._update(from, treasury, toTreasury);
        if (toPlatform > 0) super._update(from, platform, toPlatform);
        emit TaxCollected(isBuy ? to : from, pair, isBuy, value, tax);
        emit TaxDistributed(treasury, platform, toTreasury, toPlatform);
    }
}
