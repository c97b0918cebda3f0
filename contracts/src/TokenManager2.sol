// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {TaxToken, TaxTokenParams} from "./TaxToken.sol";
import {TokenDeployer} from "./TokenDeployer.sol";
import {Liquidity} from "./Liquidity.sol";

/// @notice The signed `args` of createToken (abi.encode of this struct; see contracts/README.md).
/// Private to the devnet's launchpad API stand-in and this contract, as four.meme's `createArg`
/// is private to four.meme: clients pass it through unread. The tax terms are the create API's
/// `tokenTaxInfo`, the fee rate already in basis points.
struct CreateArgs {
    string name;
    string symbol;
    uint256 requestId;
    address creator;
    uint16 feeRateBps;
    uint8 burnRate;
    uint8 divideRate;
    uint8 liquidityRate;
    uint8 recipientRate;
    address recipient;
    /// Minimum holding (wei) to take part in dividends.
    uint256 minSharing;
    uint64 deadline;
    /// The create API's `preSale` in wei: the creator's first buy, made inside createToken.
    uint256 preSale;
    /// The create API's `feePlan` (AntiSniperFeeMode): 1 on, 0 off; `_tokenInfoEx1s.feeSetting`.
    uint8 feeSetting;
}

/// @title TokenManager2 (devnet)
/// @notice four.meme TokenManager2-compatible bonding curve: same selectors, events and
/// `_tokenInfos` tuple. Curve: x * y >= K with x = funds + A and y = offers + T (virtual
/// reserves), A = maxRaising / 3 and T = maxOffers / 3, which makes the last curve price equal the
/// DEX opening price R / (20% of supply). Buyers pay ceil, sellers get floor.
/// AntiSniperFeeMode (`feePlan`): a buy pays an extra fee on top of the trading fee, highest in
/// the creation block and lower each block after (ANTI_SNIPER_*: the devnet's own schedule;
/// four.meme does not publish its own in the integration docs); the TokenPurchase `fee` stays
/// the base fee and the extra accumulates in `_tokenInfoEx1s(token).extraFee`.
contract TokenManager2 is ReentrancyGuardTransient {
    struct TokenInfo {
        address base;
        address quote;
        uint256 template;
        uint256 totalSupply;
        uint256 maxOffers;
        uint256 maxRaising;
        uint256 launchTime;
        uint256 offers;
        uint256 funds;
        uint256 lastPrice;
        uint256 K;
        uint256 T;
        uint256 status;
    }

    /// four.meme's TokenInfoEx1 (fourmeme-docs ITokenManager2.sol): `feeSetting > 0` is
    /// AntiSniperFeeMode, `blockNumber` the creation block, `extraFee` the anti-sniper fees taken.
    struct TokenInfoEx1 {
        uint256 launchFee;
        uint256 pcFee;
        uint256 feeSetting;
        uint256 blockNumber;
        uint256 extraFee;
    }

    uint256 public constant STATUS_TRADING = 0;
    uint256 public constant STATUS_HALT = 1;
    uint256 public constant STATUS_ADDING_LIQUIDITY = 2;
    uint256 public constant STATUS_COMPLETED = 3;

    uint256 internal constant GWEI = 1e9;
    uint256 internal constant TOTAL_SUPPLY = 1e27;
    uint256 internal constant MAX_OFFERS = 8e26;
    /// Tokens of tax a token keeps before it swaps and dispatches them.
    uint256 internal constant TAX_MIN_DISPATCH = 1_000e18;
    /// Anti-sniper extra fee in the creation block, basis points of the curve amount.
    uint256 public constant ANTI_SNIPER_START_BPS = 5_000;
    /// How much lower it is each block after the creation block (none from block +10 on).
    uint256 public constant ANTI_SNIPER_STEP_BPS = 500;

    address public immutable signer;
    address public immutable feeRecipient;
    address public immutable router;
    address public immutable dexFactory;
    address public immutable wbnb;
    bytes32 public immutable pairInitCodeHash;
    TokenDeployer public immutable tokenDeployer;
    uint256 public immutable maxRaising;

    uint256 public _launchFee;
    /// Protocol fee in basis points of the curve amount (100 = 1%).
    uint256 public _tradingFeeRate;
    uint256 public _tokenCount;
    bool public _tradingHalt;
    address public owner;
    mapping(uint256 => address) public _tokens;
    mapping(address => TokenInfo) public _tokenInfos;
    mapping(address => TokenInfoEx1) public _tokenInfoEx1s;
    mapping(uint256 => bool) public usedRequestIds;

    event TokenCreate(
        address creator,
        address token,
        uint256 requestId,
        string name,
        string symbol,
        uint256 totalSupply,
        uint256 launchTime,
        uint256 launchFee
    );
    event TokenPurchase(
        address token,
        address account,
        uint256 price,
        uint256 amount,
        uint256 cost,
        uint256 fee,
        uint256 offers,
        uint256 funds
    );
    event TokenPurchase2(uint256 origin);
    event TokenSale(
        address token,
        address account,
        uint256 price,
        uint256 amount,
        uint256 cost,
        uint256 fee,
        uint256 offers,
        uint256 funds
    );
    event TokenSale2(uint256 origin);
    event LiquidityAdded(address base, uint256 offers, address quote, uint256 funds);
    event TradeStop(address token);

    error BadSignature();
    error BadTaxTerms();
    error RequestUsed();
    error Expired();
    error NotCreator();
    error WrongFee();
    error UnknownToken();
    error NotTrading();
    error NotGweiAligned();
    error ZeroAmount();
    error Slippage();
    error InsufficientValue();
    error ExceedsOffers();
    error TransferFailed();
    error OnlyOwner();

    struct Config {
        address signer;
        address feeRecipient;
        address router;
        bytes32 pairInitCodeHash;
        address tokenDeployer;
        uint256 maxRaising;
        uint256 launchFee;
        uint256 tradingFeeRate;
    }

    constructor(Config memory c) {
        signer = c.signer;
        feeRecipient = c.feeRecipient;
        router = c.router;
        dexFactory = IRouterView(c.router).factory();
        wbnb = IRouterView(c.router).WETH();
        pairInitCodeHash = c.pairInitCodeHash;
        tokenDeployer = TokenDeployer(c.tokenDeployer);
        maxRaising = c.maxRaising;
        _launchFee = c.launchFee;
        _tradingFeeRate = c.tradingFeeRate;
        owner = msg.sender;
    }

    // ---------------------------------------------------------------- admin

    function setLaunchFee(uint256 fee) external {
        if (msg.sender != owner) revert OnlyOwner();
        _launchFee = fee;
    }

    function setTradingFeeRate(uint256 rate) external {
        if (msg.sender != owner || rate > 1000) revert OnlyOwner();
        _tradingFeeRate = rate;
    }

    function setTradingHalt(bool halt) external {
        if (msg.sender != owner) revert OnlyOwner();
        _tradingHalt = halt;
    }

    // ---------------------------------------------------------------- create

    /// @notice Digest the launchpad signer signs (EIP-191 personal_sign over this 32-byte hash).
    function createArgsHash(bytes calldata args) public view returns (bytes32) {
        return keccak256(abi.encode(block.chainid, address(this), keccak256(args)));
    }

    function createToken(bytes calldata args, bytes calldata signature) external payable nonReentrant {
        bytes32 digest = MessageHashUtils.toEthSignedMessageHash(createArgsHash(args));
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, signature);
        if (err != ECDSA.RecoverError.NoError || recovered != signer) revert BadSignature();
        CreateArgs memory a = abi.decode(args, (CreateArgs));
        if (usedRequestIds[a.requestId]) revert RequestUsed();
        usedRequestIds[a.requestId] = true;
        if (a.deadline != 0 && block.timestamp > a.deadline) revert Expired();
        if (a.creator != msg.sender) revert NotCreator();
        uint256 fee = _launchFee;
        if (msg.value < fee) revert WrongFee();

        address token = tokenDeployer.deploy(bytes32(a.requestId), _taxTokenParams(a));
        uint256 r = maxRaising;
        uint256 t = MAX_OFFERS / 3;
        // K = A * (maxOffers + T) exactly, so the invariant x == ceil(K / y) holds from the start.
        uint256 k = (r / 3) * (MAX_OFFERS + t);
        TokenInfo storage ti = _tokenInfos[token];
        ti.base = token;
        ti.totalSupply = TOTAL_SUPPLY;
        ti.maxOffers = MAX_OFFERS;
        ti.maxRaising = r;
        ti.launchTime = block.timestamp;
        ti.offers = MAX_OFFERS;
        ti.K = k;
        ti.T = t;
        ti.lastPrice = _price(ti);
        TokenInfoEx1 storage ex = _tokenInfoEx1s[token];
        ex.launchFee = fee;
        ex.feeSetting = a.feeSetting;
        ex.blockNumber = block.number;
        _tokens[_tokenCount++] = token;
        emit TokenCreate(msg.sender, token, a.requestId, a.name, a.symbol, TOTAL_SUPPLY, block.timestamp, fee);
        _pay(feeRecipient, fee);
        // The signed presale is the creator's first buy; whatever else was sent comes back.
        if (a.preSale == 0) _pay(msg.sender, msg.value - fee);
        else _preSale(ti, token, a.preSale, msg.value - fee);
    }

    /// @dev The creator's first buy inside createToken: `preSale` of curve amount (the value
    /// four.meme's guides send is the launch fee + preSale + its trading fee), at the trading fee
    /// alone (no anti-sniper fee for the creation's own buy), the rest of `value` refunded.
    function _preSale(TokenInfo storage ti, address token, uint256 preSale, uint256 value) internal {
        if (value < preSale + calcTradingFee(_mem(ti), preSale)) revert InsufficientValue();
        uint256 remaining = ti.maxRaising - ti.funds;
        uint256 amount;
        uint256 cost;
        if (preSale >= remaining) {
            (amount, cost) = (_capAmount(ti), remaining);
        } else {
            amount = calcBuyAmount(_mem(ti), preSale);
            cost = amount == 0 ? 0 : calcBuyCost(_mem(ti), amount);
        }
        _settleBuy(ti, msg.sender, amount, cost, 0, type(uint256).max, value, 0);
    }

    /// @dev four.meme's type-5 tax token with the signed `tokenTaxInfo` terms: `feeRate` on pair
    /// buys and sells, the four shares in percent, `minSharing` (wei) to share the holder part.
    /// The stand-in checked them as the create API does; a second check here keeps a hand-made
    /// signer from breaking the token.
    function _taxTokenParams(CreateArgs memory a) internal view returns (TaxTokenParams memory) {
        uint256 shares = uint256(a.burnRate) + a.divideRate + a.liquidityRate + a.recipientRate;
        if (shares != 100 || a.feeRateBps > 1000) revert BadTaxTerms();
        if (a.recipientRate != 0 && a.recipient == address(0)) revert BadTaxTerms();
        return TaxTokenParams({
            name: a.name,
            symbol: a.symbol,
            totalSupply: TOTAL_SUPPLY,
            manager: address(this),
            router: router,
            pairInitCodeHash: pairInitCodeHash,
            feeRate: a.feeRateBps,
            sellFeeRate: a.feeRateBps,
            // The token takes a founder only with a founder share (and refuses one without).
            founder: a.recipientRate == 0 ? address(0) : a.recipient,
            rateFounder: a.recipientRate,
            rateHolder: a.divideRate,
            rateBurn: a.burnRate,
            rateLiquidity: a.liquidityRate,
            minDispatch: TAX_MIN_DISPATCH,
            minShare: a.minSharing
        });
    }

    // ---------------------------------------------------------------- buy

    function buyTokenAMAP(address token, uint256 funds, uint256 minAmount) external payable nonReentrant {
        _buyFunds(token, msg.sender, funds, minAmount, msg.value);
    }

    function buyTokenAMAP(address token, address to, uint256 funds, uint256 minAmount)
        external
        payable
        nonReentrant
    {
        _buyFunds(token, to, funds, minAmount, msg.value);
    }

    function buyTokenAMAP(uint256 origin, address token, uint256 funds, uint256 minAmount)
        external
        payable
        nonReentrant
    {
        _buyFunds(token, msg.sender, funds, minAmount, msg.value);
        emit TokenPurchase2(origin);
    }

    function buyTokenAMAP(uint256 origin, address token, address to, uint256 funds, uint256 minAmount)
        external
        payable
        nonReentrant
    {
        _buyFunds(token, to, funds, minAmount, msg.value);
        emit TokenPurchase2(origin);
    }

    function buyToken(address token, uint256 amount, uint256 maxFunds) external payable nonReentrant {
        _buyAmount(token, msg.sender, amount, maxFunds);
    }

    function buyToken(address token, address to, uint256 amount, uint256 maxFunds) external payable nonReentrant {
        _buyAmount(token, to, amount, maxFunds);
    }

    function buyToken(uint256 origin, address token, uint256 amount, uint256 maxFunds)
        external
        payable
        nonReentrant
    {
        _buyAmount(token, msg.sender, amount, maxFunds);
        emit TokenPurchase2(origin);
    }

    function buyToken(uint256 origin, address token, address to, uint256 amount, uint256 maxFunds)
        external
        payable
        nonReentrant
    {
        _buyAmount(token, to, amount, maxFunds);
        emit TokenPurchase2(origin);
    }

    // ---------------------------------------------------------------- sell

    function sellToken(address token, uint256 amount) external nonReentrant {
        _sell(token, amount, 0);
    }

    function sellToken(address token, uint256 amount, uint256 minFunds) external nonReentrant {
        _sell(token, amount, minFunds);
    }

    function sellToken(uint256 origin, address token, uint256 amount) external nonReentrant {
        _sell(token, amount, 0);
        emit TokenSale2(origin);
    }

    function sellToken(uint256 origin, address token, uint256 amount, uint256 minFunds) external nonReentrant {
        _sell(token, amount, minFunds);
        emit TokenSale2(origin);
    }

    // ---------------------------------------------------------------- views (four.meme helpers)

    /// @notice Tokens bought with `funds` of curve amount (fee excluded), gwei-aligned.
    function calcBuyAmount(TokenInfo memory ti, uint256 funds) public pure returns (uint256) {
        (uint256 x, uint256 y) = _reserves(ti);
        uint256 out = y - _ceilDiv(ti.K, x + funds);
        out -= out % GWEI;
        return out > ti.offers ? ti.offers : out;
    }

    /// @notice Curve amount (fee excluded) to buy exactly `amount` tokens.
    function calcBuyCost(TokenInfo memory ti, uint256 amount) public pure returns (uint256) {
        (uint256 x, uint256 y) = _reserves(ti);
        return _ceilDiv(ti.K, y - amount) - x;
    }

    /// @notice Curve amount (fee excluded) paid for selling `amount` tokens.
    function calcSellCost(TokenInfo memory ti, uint256 amount) public pure returns (uint256) {
        (uint256 x, uint256 y) = _reserves(ti);
        return x - _ceilDiv(ti.K, y + amount);
    }

    function calcLastPrice(TokenInfo memory ti) public pure returns (uint256) {
        return _price(ti);
    }

    function calcTradingFee(TokenInfo memory, uint256 funds) public view returns (uint256) {
        return _ceilDiv(funds * _tradingFeeRate, 10_000);
    }

    // ---------------------------------------------------------------- internals

    function _buyFunds(address token, address to, uint256 funds, uint256 minAmount, uint256 value) internal {
        TokenInfo storage ti = _trading(token);
        if (value < funds) revert InsufficientValue();
        uint256 extraRate = _extraFeeRate(token);
        uint256 rate = _tradingFeeRate + extraRate;
        // Largest curve amount whose ceil-rounded fees still fit in `funds`.
        uint256 budget = (funds * 10_000) / (10_000 + rate);
        uint256 remaining = ti.maxRaising - ti.funds;
        uint256 amount;
        uint256 cost;
        if (budget >= remaining) {
            (amount, cost) = (_capAmount(ti), remaining);
        } else {
            amount = calcBuyAmount(_mem(ti), budget);
            cost = amount == 0 ? 0 : calcBuyCost(_mem(ti), amount);
        }
        _settleBuy(ti, to, amount, cost, minAmount, type(uint256).max, value, extraRate);
    }

    function _buyAmount(address token, address to, uint256 amount, uint256 maxFunds) internal {
        TokenInfo storage ti = _trading(token);
        if (amount % GWEI != 0) revert NotGweiAligned();
        uint256 cap = _capAmount(ti);
        if (amount > cap) revert ExceedsOffers();
        uint256 cost = amount == cap ? ti.maxRaising - ti.funds : calcBuyCost(_mem(ti), amount);
        _settleBuy(ti, to, amount, cost, 0, maxFunds, msg.value, _extraFeeRate(token));
    }

    function _settleBuy(
        TokenInfo storage ti,
        address to,
        uint256 amount,
        uint256 cost,
        uint256 minAmount,
        uint256 maxFunds,
        uint256 value,
        uint256 extraRate
    ) internal {
        address token = ti.base;
        if (amount == 0) revert ZeroAmount();
        if (amount < minAmount) revert Slippage();
        uint256 fee = _ceilDiv(cost * _tradingFeeRate, 10_000);
        // Both fees rounded once together, so a buy with `funds` never needs a wei more than them.
        uint256 extra = _ceilDiv(cost * (_tradingFeeRate + extraRate), 10_000) - fee;
        uint256 total = cost + fee + extra;
        if (total > maxFunds) revert Slippage();
        if (total > value) revert InsufficientValue();
        ti.offers -= amount;
        ti.funds += cost;
        ti.lastPrice = _price(ti);
        if (extra > 0) _tokenInfoEx1s[token].extraFee += extra;
        _emitTrade(ti, token, to, amount, cost, fee, true);
        if (!IERC20(token).transfer(to, amount)) revert TransferFailed();
        _pay(feeRecipient, fee + extra);
        if (ti.funds >= ti.maxRaising) _graduate(ti, token);
        _pay(msg.sender, value - total);
    }

    function _sell(address token, uint256 amount, uint256 minFunds) internal {
        TokenInfo storage ti = _trading(token);
        if (amount == 0) revert ZeroAmount();
        if (amount % GWEI != 0) revert NotGweiAligned();
        if (ti.offers + amount > ti.maxOffers) revert ExceedsOffers();
        uint256 cost = calcSellCost(_mem(ti), amount);
        uint256 fee = _ceilDiv(cost * _tradingFeeRate, 10_000);
        if (cost - fee < minFunds) revert Slippage();
        ti.offers += amount;
        ti.funds -= cost;
        ti.lastPrice = _price(ti);
        _emitTrade(ti, token, msg.sender, amount, cost, fee, false);
        if (!IERC20(token).transferFrom(msg.sender, address(this), amount)) revert TransferFailed();
        _pay(feeRecipient, fee);
        _pay(msg.sender, cost - fee);
    }

    function _emitTrade(
        TokenInfo storage ti,
        address token,
        address account,
        uint256 amount,
        uint256 cost,
        uint256 fee,
        bool buy
    ) internal {
        if (buy) emit TokenPurchase(token, account, ti.lastPrice, amount, cost, fee, ti.offers, ti.funds);
        else emit TokenSale(token, account, ti.lastPrice, amount, cost, fee, ti.offers, ti.funds);
    }

    /// @dev All remaining curve tokens plus the 20% reserve and the raise go to the DEX pair.
    function _graduate(TokenInfo storage ti, address token) internal {
        ti.status = STATUS_ADDING_LIQUIDITY;
        emit TradeStop(token);
        uint256 tokens = IERC20(token).balanceOf(address(this));
        uint256 bnb = ti.funds;
        Liquidity.seed(router, token, tokens, bnb);
        TaxToken(payable(token)).setMode(0);
        ti.offers = 0;
        ti.status = STATUS_COMPLETED;
        emit LiquidityAdded(token, tokens, address(0), bnb);
    }

    /// @dev The anti-sniper extra fee rate of a buy now (basis points); 0 without AntiSniperFeeMode.
    function _extraFeeRate(address token) internal view returns (uint256) {
        TokenInfoEx1 storage ex = _tokenInfoEx1s[token];
        if (ex.feeSetting == 0) return 0;
        uint256 drop = (block.number - ex.blockNumber) * ANTI_SNIPER_STEP_BPS;
        return drop >= ANTI_SNIPER_START_BPS ? 0 : ANTI_SNIPER_START_BPS - drop;
    }

    /// @dev Tokens a buyer gets when the purchase reaches maxRaising exactly.
    function _capAmount(TokenInfo storage ti) internal view returns (uint256) {
        uint256 out = ti.offers + ti.T - _ceilDiv(ti.K, ti.maxRaising + ti.K / (ti.maxOffers + ti.T));
        out -= out % GWEI;
        return out > ti.offers ? ti.offers : out;
    }

    function _trading(address token) internal view returns (TokenInfo storage ti) {
        ti = _tokenInfos[token];
        if (ti.base == address(0)) revert UnknownToken();
        if (ti.status != STATUS_TRADING || _tradingHalt) revert NotTrading();
    }

    function _mem(TokenInfo storage ti) internal pure returns (TokenInfo memory) {
        return ti;
    }

    function _reserves(TokenInfo memory ti) internal pure returns (uint256 x, uint256 y) {
        x = ti.funds + ti.K / (ti.maxOffers + ti.T);
        y = ti.offers + ti.T;
    }

    /// @dev Marginal price in BNB wei per 1e18 token units.
    function _price(TokenInfo memory ti) internal pure returns (uint256) {
        (uint256 x, uint256 y) = _reserves(ti);
        return (x * 1e18) / y;
    }

    function _ceilDiv(uint256 a, uint256 b) internal pure returns (uint256) {
        return a == 0 ? 0 : (a - 1) / b + 1;
    }

    function _pay(address to, uint256 amount) internal {
        if (amount == 0) return;
        (bool ok,) = payable(to).call{value: amount}("");
        if (!ok) revert TransferFailed();
    }
}

interface IRouterView {
    function factory() external view returns (address);
    function WETH() external view returns (address);
}
