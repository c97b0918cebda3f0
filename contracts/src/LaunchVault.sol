// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {TaxToken, TaxTokenParams} from "./TaxToken.sol";
import {TokenDeployer} from "./TokenDeployer.sol";
import {Liquidity} from "./Liquidity.sol";

/// @notice Tier terms, copied into each vault at creation so later tier edits never touch it.
struct Tier {
    uint128 minRaise;
    uint128 maxRaise;
    uint128 minDeposit;
    uint128 maxPerWallet;
    /// Share of the token supply paired with the whole raise on the DEX; the rest is claimable.
    uint16 liquidityBps;
    bool enabled;
}

struct VaultConfig {
    uint256 launchId;
    address factory;
    address router;
    address treasury;
    address creator;
    address tokenDeployer;
    uint64 closeTimestamp;
    uint8 tierId;
    Tier tier;
    TaxTokenParams token;
}

/// @title LaunchVault
/// @notice One deposit-based launch. BNB leaves this contract only through: `withdraw` (own
/// deposit, while open), `executeLaunch` (the whole raise into the DEX pair, LP burned) and
/// `refund` (own deposit, after refund was enabled). States: Open -> Closed -> Launched | Refund.
contract LaunchVault is ReentrancyGuardTransient {
    enum State {
        Open,
        Closed,
        Launched,
        Refund
    }

    /// A closed vault whose launch was not executed within this window can be refunded by anyone.
    uint256 public constant EXECUTE_WINDOW = 1 days;
    uint256 internal constant TOTAL_SUPPLY = 1e27;

    uint256 public immutable launchId;
    address public immutable factory;
    address public immutable router;
    address public immutable treasury;
    address public immutable creator;
    address public immutable predictedToken;
    uint64 public immutable closeTimestamp;
    uint8 public immutable tierId;
    TokenDeployer internal immutable _deployer;

    Tier internal _tier;
    TaxTokenParams internal _tokenParams;

    State public state;
    address public token;
    address public pair;
    uint256 public totalDeposited;
    /// Tokens owed to depositors in total (set at launch) and paid out so far.
    uint256 public tokensForDepositors;
    uint256 public tokensClaimed;
    address[] internal _depositors;
    mapping(address => uint256) public deposits;
    mapping(address => bool) public claimed;
    mapping(address => bool) public refunded;
    mapping(address => bool) internal _listed;

    event Deposited(address indexed depositor, uint256 amount, uint256 totalDeposited);
    event Withdrew(address indexed depositor, uint256 amount, uint256 totalDeposited);
    event Closed(uint256 totalDeposited, uint256 depositorCount);
    event LaunchExecuted(
        address indexed token,
        address indexed pair,
        uint256 liquidityBnb,
        uint256 liquidityTokens,
        uint256 tokensForDepositors
    );
    event Distributed(uint256 fromIndex, uint256 toIndex, uint256 amount);
    event Claimed(address indexed depositor, uint256 amount);
    event RefundEnabled(uint8 reason, uint256 totalDeposited);
    event Refunded(address indexed depositor, uint256 amount);

    error WrongState();
    error TooEarly();
    error TooLate();
    error BelowMinDeposit();
    error AboveWalletLimit();
    error AboveMaxRaise();
    error InsufficientDeposit();
    error BelowMinRaise();
    error TokenMismatch();
    error NothingToClaim();
    error NotAllowed();
    error TransferFailed();

    constructor(VaultConfig memory c) {
        launchId = c.launchId;
        factory = c.factory;
        router = c.router;
        treasury = c.treasury;
        creator = c.creator;
        _deployer = TokenDeployer(c.tokenDeployer);
        closeTimestamp = c.closeTimestamp;
        tierId = c.tierId;
        _tier = c.tier;
        // The vault is the token's manager (receives the supply, seeds the pair).
        c.token.manager = address(this);
        _tokenParams = c.token;
        predictedToken = _deployer.predict(address(this), bytes32(c.launchId), c.token);
    }

    function tier() external view returns (Tier memory) {
        return _tier;
    }

    function depositorCount() external view returns (uint256) {
        return _depositors.length;
    }

    function depositorAt(uint256 i) external view returns (address) {
        return _depositors[i];
    }

    /// @notice Tokens `who` can claim (0 before launch or once claimed).
    function claimable(address who) public view returns (uint256) {
        if (state != State.Launched || claimed[who]) return 0;
        return (tokensForDepositors * deposits[who]) / totalDeposited;
    }

    function deposit() external payable nonReentrant {
        if (state != State.Open) revert WrongState();
        if (block.timestamp >= closeTimestamp) revert TooLate();
        if (msg.value == 0 || msg.value < _tier.minDeposit) revert BelowMinDeposit();
        uint256 mine = deposits[msg.sender] + msg.value;
        if (mine > _tier.maxPerWallet) revert AboveWalletLimit();
        uint256 total = totalDeposited + msg.value;
        if (total > _tier.maxRaise) revert AboveMaxRaise();
        // Listed once even if they withdraw everything and come back.
        if (!_listed[msg.sender]) {
            _listed[msg.sender] = true;
            _depositors.push(msg.sender);
        }
        deposits[msg.sender] = mine;
        totalDeposited = total;
        emit Deposited(msg.sender, msg.value, total);
    }

    /// @notice Takes back part or all of one's deposit while the vault is open. A depositor who
    /// withdraws everything stays in the list with 0 and gets nothing.
    function withdraw(uint256 amount) external nonReentrant {
        if (state != State.Open || block.timestamp >= closeTimestamp) revert WrongState();
        uint256 mine = deposits[msg.sender];
        if (amount == 0 || amount > mine) revert InsufficientDeposit();
        deposits[msg.sender] = mine - amount;
        totalDeposited -= amount;
        emit Withdrew(msg.sender, amount, totalDeposited);
        _pay(msg.sender, amount);
    }

    /// @notice Anyone, once the close timestamp has passed.
    function close() external {
        if (state != State.Open) revert WrongState();
        if (block.timestamp < closeTimestamp) revert TooEarly();
        state = State.Closed;
        emit Closed(totalDeposited, _depositors.length);
    }

    /// @notice Anyone, once closed with the tier minimum met: creates the token at the predicted
    /// address, pairs `liquidityBps` of the supply with the whole raise, burns the LP.
    function executeLaunch() external nonReentrant returns (address t) {
        if (state != State.Closed) revert WrongState();
        uint256 raised = totalDeposited;
        if (raised < _tier.minRaise) revert BelowMinRaise();
        state = State.Launched;
        t = _deployer.deploy(bytes32(launchId), _tokenParams);
        if (t != predictedToken) revert TokenMismatch();
        token = t;
        uint256 lpTokens = (TOTAL_SUPPLY * _tier.liquidityBps) / 10_000;
        tokensForDepositors = TOTAL_SUPPLY - lpTokens;
        (address p,) = Liquidity.seed(router, t, lpTokens, raised);
        pair = p;
        TaxToken(payable(t)).setMode(0);
        emit LaunchExecuted(t, p, raised, lpTokens, tokensForDepositors);
    }

    /// @notice Pushes unclaimed tokens to depositors [fromIndex, toIndex); anyone may call it.
    function distribute(uint256 fromIndex, uint256 toIndex) external nonReentrant {
        if (state != State.Launched) revert WrongState();
        if (toIndex > _depositors.length) toIndex = _depositors.length;
        uint256 sum;
        for (uint256 i = fromIndex; i < toIndex; i++) {
            sum += _claimFor(_depositors[i]);
        }
        emit Distributed(fromIndex, toIndex, sum);
    }

    function claim() external nonReentrant returns (uint256 amount) {
        if (state != State.Launched) revert WrongState();
        amount = _claimFor(msg.sender);
        if (amount == 0) revert NothingToClaim();
    }

    /// @notice reason 1: raise below the tier minimum (anyone, once closed; closes an expired open
    /// vault on the way). reason 2: launch not executed within EXECUTE_WINDOW after close (anyone).
    /// reason 3: the factory owner declares the launch failed (only before it was executed).
    function enableRefund() external {
        if (state == State.Open && block.timestamp >= closeTimestamp) {
            state = State.Closed;
            emit Closed(totalDeposited, _depositors.length);
        }
        if (state != State.Closed) revert WrongState();
        uint8 reason;
        if (totalDeposited < _tier.minRaise) reason = 1;
        else if (block.timestamp >= uint256(closeTimestamp) + EXECUTE_WINDOW) reason = 2;
        else if (msg.sender == IOwned(factory).owner()) reason = 3;
        else revert NotAllowed();
        state = State.Refund;
        emit RefundEnabled(reason, totalDeposited);
    }

    function refund() external nonReentrant returns (uint256 amount) {
        if (state != State.Refund) revert WrongState();
        amount = deposits[msg.sender];
        if (amount == 0 || refunded[msg.sender]) revert NothingToClaim();
        refunded[msg.sender] = true;
        emit Refunded(msg.sender, amount);
        _pay(msg.sender, amount);
    }

    function _claimFor(address who) internal returns (uint256 amount) {
        amount = claimable(who);
        if (amount == 0) return 0;
        claimed[who] = true;
        tokensClaimed += amount;
        emit Claimed(who, amount);
        if (!IERC20(token).transfer(who, amount)) revert TransferFailed();
    }

    function _pay(address to, uint256 amount) internal {
        (bool ok,) = payable(to).call{value: amount}("");
        if (!ok) revert TransferFailed();
    }
}

interface IOwned {
    function owner() external view returns (address);
}
