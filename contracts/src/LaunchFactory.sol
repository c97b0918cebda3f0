// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {TaxTokenParams} from "./TaxToken.sol";
import {TokenDeployer} from "./TokenDeployer.sol";
import {LaunchVault, Tier, VaultConfig} from "./LaunchVault.sol";

interface ISafeProxyFactory {
    function createProxyWithNonce(address singleton, bytes memory initializer, uint256 saltNonce)
        external
        returns (address proxy);
}

interface IRouterInfo {
    function factory() external view returns (address);
    function WETH() external view returns (address);
}

/// @title LaunchFactory
/// @notice Creates deposit-based launches: per launch a treasury Safe (1.4.1, owner = creator,
/// threshold 1) that receives the token's tax share, and a LaunchVault. The token address is
/// predicted here (CREATE2 through TokenDeployer) and the vault checks the real one equals it.
contract LaunchFactory is Ownable {
    uint16 public constant MAX_TAX_BPS = 1000;
    uint256 public constant MAX_DURATION = 30 days;

    address public immutable router;
    address public immutable dexFactory;
    address public immutable wbnb;
    bytes32 public immutable pairInitCodeHash;
    TokenDeployer public immutable tokenDeployer;
    address public immutable safeProxyFactory;
    address public immutable safeSingleton;
    address public immutable safeFallbackHandler;

    address public platform;
    uint16 public treasuryShareBps;
    uint256 public launchCount;
    mapping(uint8 => Tier) internal _tiers;
    mapping(uint256 => address) public vaults;

    event LaunchCreated(
        uint256 indexed launchId,
        address indexed vault,
        address router,
        address treasury,
        address predictedToken,
        address indexed creator,
        uint8 tier,
        uint64 closeTimestamp,
        uint16 buyTaxBps,
        uint16 sellTaxBps
    );
    /// @notice Token name, symbol and free-form metadata (JSON) of a launch; same tx as LaunchCreated.
    event LaunchMetadata(uint256 indexed launchId, string name, string symbol, string metadata);
    event TierSet(
        uint8 indexed tier,
        uint256 minRaise,
        uint256 maxRaise,
        uint256 minDeposit,
        uint256 maxPerWallet,
        uint16 liquidityBps,
        bool enabled
    );
    event PlatformSet(address platform, uint16 treasuryShareBps);

    error TierDisabled();
    error BadTier();
    error BadClose();
    error TaxTooHigh();
    error ZeroCreator();
    error BadShare();

    /// `owner` is explicit, not msg.sender (deployed through the CREATE2 proxy, the sender is the
    /// proxy). The platform starts as the owner with no treasury share and is set afterwards
    /// (setPlatform), so the address depends on no setting an operator may change (contracts/deploy/);
    /// no launch can start before setTier enables a tier.
    struct Config {
        address owner;
        address router;
        bytes32 pairInitCodeHash;
        address tokenDeployer;
        address safeProxyFactory;
        address safeSingleton;
        address safeFallbackHandler;
    }

    constructor(Config memory c) Ownable(c.owner) {
        router = c.router;
        dexFactory = IRouterInfo(c.router).factory();
        wbnb = IRouterInfo(c.router).WETH();
        pairInitCodeHash = c.pairInitCodeHash;
        tokenDeployer = TokenDeployer(c.tokenDeployer);
        safeProxyFactory = c.safeProxyFactory;
        safeSingleton = c.safeSingleton;
        safeFallbackHandler = c.safeFallbackHandler;
        _setPlatform(c.owner, 0);
    }

    function tiers(uint8 id) external view returns (Tier memory) {
        return _tiers[id];
    }

    function setTier(uint8 id, Tier calldata t) external onlyOwner {
        if (t.minRaise == 0 || t.minRaise > t.maxRaise || t.maxPerWallet == 0 || t.minDeposit > t.maxPerWallet) {
            revert BadTier();
        }
        if (t.liquidityBps == 0 || t.liquidityBps >= 10_000) revert BadTier();
        _tiers[id] = t;
        emit TierSet(id, t.minRaise, t.maxRaise, t.minDeposit, t.maxPerWallet, t.liquidityBps, t.enabled);
    }

    function setPlatform(address platform_, uint16 treasuryShareBps_) external onlyOwner {
        _setPlatform(platform_, treasuryShareBps_);
    }

    struct LaunchInput {
        uint8 tier;
        string name;
        string symbol;
        string metadata;
        uint64 closeTimestamp;
        uint16 buyTaxBps;
        uint16 sellTaxBps;
        address creator;
    }

    function createLaunch(
        uint8 tier,
        string memory name,
        string memory symbol,
        string memory metadata,
        uint64 closeTimestamp,
        uint16 buyTaxBps,
        uint16 sellTaxBps,
        address creator
    ) external returns (uint256 launchId, address vault) {
        return _createLaunch(LaunchInput(tier, name, symbol, metadata, closeTimestamp, buyTaxBps, sellTaxBps, creator));
    }

    function _createLaunch(LaunchInput memory i) internal returns (uint256 launchId, address vault) {
        Tier memory t = _tiers[i.tier];
        if (!t.enabled) revert TierDisabled();
        if (i.closeTimestamp <= block.timestamp || i.closeTimestamp > block.timestamp + MAX_DURATION) revert BadClose();
        if (i.buyTaxBps > MAX_TAX_BPS || i.sellTaxBps > MAX_TAX_BPS) revert TaxTooHigh();
        if (i.creator == address(0)) revert ZeroCreator();
        launchId = ++launchCount;
        address treasury = _createTreasury(i.creator, launchId);
        vault = address(new LaunchVault(_vaultConfig(i, t, launchId, treasury)));
        vaults[launchId] = vault;
        _emitCreated(i, launchId, vault, treasury);
    }

    function _emitCreated(LaunchInput memory i, uint256 launchId, address vault, address treasury) internal {
        emit LaunchCreated(
            launchId,
            vault,
            router,
            treasury,
            LaunchVault(vault).predictedToken(),
            i.creator,
            i.tier,
            i.closeTimestamp,
            i.buyTaxBps,
            i.sellTaxBps
        );
        emit LaunchMetadata(launchId, i.name, i.symbol, i.metadata);
    }

    function _vaultConfig(LaunchInput memory i, Tier memory t, uint256 launchId, address treasury)
        internal
        view
        returns (VaultConfig memory)
    {
        return VaultConfig({
            launchId: launchId,
            factory: address(this),
            router: router,
            treasury: treasury,
            creator: i.creator,
            tokenDeployer: address(tokenDeployer),
            closeTimestamp: i.closeTimestamp,
            tierId: i.tier,
            tier: t,
            token: TaxTokenParams({
                name: i.name,
                symbol: i.symbol,
                totalSupply: 1e27,
                // Filled in by the vault with its own address.
                manager: address(0),
                router: router,
                pairInitCodeHash: pairInitCodeHash,
                feeRate: i.buyTaxBps,
                sellFeeRate: i.sellTaxBps,
                // four.meme's token pays one recipient: the treasury takes its share of each
                // dispatch (whole percent), the rest is burned.
                founder: treasuryShareBps >= 100 ? treasury : address(0),
                rateFounder: treasuryShareBps / 100,
                rateHolder: 0,
                rateBurn: 100 - treasuryShareBps / 100,
                rateLiquidity: 0,
                minDispatch: 1_000e18,
                minShare: 100_000e18
            })
        });
    }

    function _createTreasury(address creator, uint256 launchId) internal returns (address) {
        address[] memory owners = new address[](1);
        owners[0] = creator;
        bytes memory setup = abi.encodeWithSignature(
            "setup(address[],uint256,address,bytes,address,address,uint256,address)",
            owners,
            uint256(1),
            address(0),
            bytes(""),
            safeFallbackHandler,
            address(0),
            uint256(0),
            address(0)
        );
        return ISafeProxyFactory(safeProxyFactory).createProxyWithNonce(
            safeSingleton, setup, uint256(keccak256(abi.encode(address(this), launchId)))
        );
    }

    function _setPlatform(address platform_, uint16 share) internal {
        if (share > 10_000) revert BadShare();
        platform = platform_;
        treasuryShareBps = share;
        emit PlatformSet(platform_, share);
    }
}
